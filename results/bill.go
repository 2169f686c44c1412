package results

// TokenBill is what a lane's calls answered in the window cost in tokens,
// by class, and how their prompt cache fared; the simulator prices each
// call at its model's prices as it is answered.
type TokenBill struct {
	Uncached   float64 // input neither read from nor written to the cache
	CacheWrite float64 // input written to the cache
	CacheRead  float64 // input read from the cache
	Output     float64
	Dollars    float64 // the tokens at the model's prices
	// CacheMissGateway and CacheMissTool count calls whose job had a cache
	// entry that expired before the call: by its wait at the gateway
	// (queue and backoff: the entry would have lived had the call been sent
	// when made), or by the time before it was made (tool step, previous
	// service).
	CacheMissGateway int64
	CacheMissTool    int64
}

func (b *TokenBill) add(o TokenBill) {
	b.Uncached += o.Uncached
	b.CacheWrite += o.CacheWrite
	b.CacheRead += o.CacheRead
	b.Output += o.Output
	b.Dollars += o.Dollars
	b.CacheMissGateway += o.CacheMissGateway
	b.CacheMissTool += o.CacheMissTool
}

// Bill is a lane's cost over the window: tokens at their prices and
// containers at theirs, per completed job and in all (summary.json "bill",
// written when the scenario sets prices or a prompt cache).
type Bill struct {
	Dollars          float64 `json:"dollars"`
	TokenDollars     float64 `json:"token_dollars"`
	ContainerDollars float64 `json:"container_dollars"`
	// Per completed job in the window (0 when none completed).
	DollarsPerJob          float64 `json:"dollars_per_job"`
	TokenDollarsPerJob     float64 `json:"token_dollars_per_job"`
	ContainerDollarsPerJob float64 `json:"container_dollars_per_job"`
	Tokens                 struct {
		Uncached   float64 `json:"uncached_input"`
		CacheWrite float64 `json:"cache_write"`
		CacheRead  float64 `json:"cache_read"`
		Output     float64 `json:"output"`
	} `json:"tokens"`
	// CacheReadShare is cache reads over all input tokens.
	CacheReadShare   float64 `json:"cache_read_share"`
	CacheMissGateway int64   `json:"cache_misses_gateway"`
	CacheMissTool    int64   `json:"cache_misses_tool"`
}

// newBill prices a lane: its token bill and containerDollars for
// completed jobs.
func newBill(t TokenBill, containerDollars float64, completed int64) *Bill {
	b := &Bill{TokenDollars: t.Dollars, ContainerDollars: containerDollars, Dollars: t.Dollars + containerDollars,
		CacheMissGateway: t.CacheMissGateway, CacheMissTool: t.CacheMissTool}
	b.Tokens.Uncached, b.Tokens.CacheWrite, b.Tokens.CacheRead, b.Tokens.Output = t.Uncached, t.CacheWrite, t.CacheRead, t.Output
	b.CacheReadShare = Ratio(t.CacheRead, t.Uncached+t.CacheWrite+t.CacheRead)
	n := float64(completed)
	b.DollarsPerJob, b.TokenDollarsPerJob, b.ContainerDollarsPerJob = Ratio(b.Dollars, n), Ratio(b.TokenDollars, n), Ratio(b.ContainerDollars, n)
	return b
}
