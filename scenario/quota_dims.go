package scenario

// Quota dimensions, in the order of OrgConfig's keys.
const (
	DimRPM = iota
	DimTPM
	DimRPD
	DimTPD
	NumDims
)

// DimNames names the quota dimensions as scenario keys do.
var DimNames = [NumDims]string{"rpm", "tpm", "rpd", "tpd"}
