package scenario

import (
	"time"

	"github.com/evalsched/lab/policies"
)

// Quota dimensions, in the order of OrgConfig's keys: the policies' four
// (policies.QuotaReading indexes by them), then the input and output
// token windows a provider may meter apart. TPM and TPD count input and
// output; ITPM only input, OTPM only output.
const (
	DimRPM  = policies.DimRPM
	DimTPM  = policies.DimTPM
	DimRPD  = policies.DimRPD
	DimTPD  = policies.DimTPD
	DimITPM = policies.NumDims // input tokens per minute
	DimOTPM = DimITPM + 1      // output tokens per minute
	NumDims = DimOTPM + 1
)

// DimNames names the quota dimensions as scenario keys do.
var DimNames = [NumDims]string{"rpm", "tpm", "rpd", "tpd", "itpm", "otpm"}

// DimSpan is the span of a dimension's quota: a minute or a day.
func DimSpan(d int) time.Duration {
	if d == DimRPD || d == DimTPD {
		return 24 * time.Hour
	}
	return time.Minute
}

// DimCounts is what a dimension counts of a try.
type DimCounts uint8

const (
	CountsRequests DimCounts = iota // one per try
	CountsTokens                    // input and output
	CountsInput
	CountsOutput
)

// DimCount is what dimension d counts.
func DimCount(d int) DimCounts {
	switch d {
	case DimTPM, DimTPD:
		return CountsTokens
	case DimITPM:
		return CountsInput
	case DimOTPM:
		return CountsOutput
	}
	return CountsRequests
}
