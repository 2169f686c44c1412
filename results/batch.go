package results

// BatchLaneRaw is what one batch pool (an organisation's batch API, or one
// model's pool in it) measured over a run. Counts are of the whole run;
// the latencies, tokens and dollars are of the requests completed in the
// measurement window.
type BatchLaneRaw struct {
	Org   string
	Model string // a per-model pool's model ("" for an organisation's pool)
	// Submitted = Completed + Expired + Refused + Held + Enqueued (at the end).
	Submitted, Completed, Expired, Refused, Held, Enqueued int64
	// PeakRequests and PeakTokens are the most requests and input tokens
	// enqueued at once; LimitRequests and LimitTokens the pool's limits
	// (0: none).
	PeakRequests, PeakTokens   int64
	LimitRequests, LimitTokens float64
	// Latencies are submission (the job's arrival) to completion, seconds.
	Latencies                 []float64
	InputTokens, OutputTokens float64
	// Dollars is the completed requests' tokens at the batch price;
	// SyncDollars the same tokens at the model's synchronous prices.
	Dollars, SyncDollars float64
	// ProdTokens, AllTokens, ProdRequests and AllRequests are the tokens
	// and requests the organisation's synchronous pool counted (whole
	// run): production's and everyone's.
	ProdTokens, AllTokens, ProdRequests, AllRequests float64
}

// BatchLane is one batch pool's summary (runs[].batch_lanes[]).
type BatchLane struct {
	Org       string `json:"org"`
	Model     string `json:"model,omitempty"`
	Submitted int64  `json:"submitted"`
	Completed int64  `json:"completed"`
	Expired   int64  `json:"expired"`
	Refused   int64  `json:"refused"`
	// HeldAtEnd waited for room in the pool at the run's end; EnqueuedAtEnd
	// were in it, not yet completed.
	HeldAtEnd        int64   `json:"held_at_end"`
	EnqueuedAtEnd    int64   `json:"enqueued_at_end"`
	PeakRequests     int64   `json:"peak_enqueued_requests"`
	PeakTokens       int64   `json:"peak_enqueued_tokens"`
	LimitRequests    float64 `json:"limit_enqueued_requests"`
	LimitTokens      float64 `json:"limit_enqueued_tokens"`
	CompletedWindow  int64   `json:"completed_in_window"`
	CompletedPerHour float64 `json:"completed_per_hour"`
	Latency          Stats   `json:"latency_s"`
	InputTokens      float64 `json:"input_tokens"`
	OutputTokens     float64 `json:"output_tokens"`
	Dollars          float64 `json:"dollars"`
	DollarsPerJob    float64 `json:"dollars_per_job"`
	SyncDollars      float64 `json:"sync_dollars"`
	// ProductionTokenShare and ProductionRequestShare are production's
	// share of the tokens and requests the organisation's synchronous
	// quotas counted over the run (0 without production).
	ProductionTokenShare   float64 `json:"production_token_share"`
	ProductionRequestShare float64 `json:"production_request_share"`
}

// summarizeBatch turns a batch pool's measurements into its summary over a
// window of hours.
func summarizeBatch(b BatchLaneRaw, hours float64) BatchLane {
	n := int64(len(b.Latencies))
	return BatchLane{
		Org: b.Org, Model: b.Model, Submitted: b.Submitted, Completed: b.Completed, Expired: b.Expired, Refused: b.Refused,
		HeldAtEnd: b.Held, EnqueuedAtEnd: b.Enqueued, PeakRequests: b.PeakRequests, PeakTokens: b.PeakTokens,
		LimitRequests: b.LimitRequests, LimitTokens: b.LimitTokens,
		CompletedWindow: n, CompletedPerHour: Ratio(float64(n), hours),
		Latency:     NewStats(append([]float64(nil), b.Latencies...)),
		InputTokens: b.InputTokens, OutputTokens: b.OutputTokens,
		Dollars: b.Dollars, DollarsPerJob: Ratio(b.Dollars, float64(n)), SyncDollars: b.SyncDollars,
		ProductionTokenShare:   Ratio(b.ProdTokens, b.AllTokens),
		ProductionRequestShare: Ratio(b.ProdRequests, b.AllRequests),
	}
}
