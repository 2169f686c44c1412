package results

// SeriesCSVHeader is the base header of series.csv (the columns every reader needs).
const SeriesCSVHeader = "policy,t_s,model,running,limit,gateway_depth,provider_inflight,waiting"

// SeriesCSVQuotaColumns follow the base columns in series.csv: 429s since the
// previous sample, the fullest quota window's share of its limit, and the
// evaluation calls waiting out a backoff at the gateway.
const SeriesCSVQuotaColumns = "rejected_429,quota_use,gateway_backoff"

// BatchesCSVHeader is the header of batches.csv: progress of tracked batches.
const BatchesCSVHeader = "policy,t_s,batch,model,class,jobs,started,done"
