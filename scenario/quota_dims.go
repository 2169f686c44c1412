package scenario

import "github.com/evalsched/lab/policies"

// Quota dimensions: the policies' (policies.QuotaReading indexes by them),
// in the order of OrgConfig's keys.
const (
	DimRPM  = policies.DimRPM
	DimTPM  = policies.DimTPM
	DimRPD  = policies.DimRPD
	DimTPD  = policies.DimTPD
	NumDims = policies.NumDims
)

// DimNames names the quota dimensions as scenario keys do.
var DimNames = [NumDims]string{"rpm", "tpm", "rpd", "tpd"}
