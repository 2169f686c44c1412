package results

// EvaluationWorkload names the evaluation jobs in quota telemetry; every
// other workload is a production stream, by its name.
const EvaluationWorkload = "evaluation"

// QuotaUse is one line of a run's quota telemetry: a workload's use of one
// daily quota of an organisation (Org) or a gateway virtual key (Key) over
// the whole run — "this run used N of the daily quota M".
type QuotaUse struct {
	Workload  string `json:"workload"`
	Org       string `json:"org,omitempty"`
	Key       string `json:"key,omitempty"`
	Dimension string `json:"dimension"` // rpd or tpd
	// Used is what the quota counted (its units: tokens as the
	// organisation's input and output rules count them); RealTokens, on a
	// token quota, is the same calls' real input + output.
	Used       float64 `json:"used"`
	RealTokens float64 `json:"real_tokens,omitempty"`
	Quota      float64 `json:"quota"`
	Share      float64 `json:"share"` // Used ÷ Quota
}

// ProductionMinute is one minute of a production stream: calls answered
// (served), tries rejected by a quota, calls given up, the latency
// percentiles of the answered calls (arrival to answer), and whether the
// minute counts as an outage minute.
type ProductionMinute struct {
	Minute      int     `json:"minute"`
	Served      int64   `json:"served"`
	Rejected429 int64   `json:"rejected_429"`
	Failed      int64   `json:"failed"`
	LatencyP50  float64 `json:"latency_p50_s"`
	LatencyP99  float64 `json:"latency_p99_s"`
	Outage      bool    `json:"outage,omitempty"`
}

// AlertEpisode is one episode of the quota alert: non-production traffic
// above the alert's share of a shared quota, from Start to End (seconds of
// virtual time; End is the run's end if it never cleared).
type AlertEpisode struct {
	Start     float64 `json:"start_s"`
	End       float64 `json:"end_s"`
	Key       string  `json:"key"`
	Dimension string  `json:"dimension"`
	PeakShare float64 `json:"peak_share"`
	// Models are the models whose evaluation calls bill to Key: the
	// timelines the episode is drawn on.
	Models []string `json:"models,omitempty"`
}

// GuardStats is what a run's guards did.
type GuardStats struct {
	// DeferredTicks counts decisions in which the circuit breaker held
	// every start back while jobs waited; DeferredSeconds is the time the
	// breaker was open; Trips counts the times it opened.
	DeferredTicks   int64   `json:"deferred_ticks"`
	DeferredSeconds float64 `json:"deferred_s"`
	Trips           int64   `json:"trips"`
}

// QuotaRun is a run's quota figures besides the telemetry: retry burn and
// the gateway's virtual-key rejections.
type QuotaRun struct {
	// BurnedEval and BurnedProduction are rejected tries counted against
	// request quotas (RPM/RPD) with count_rejected: retry burn.
	BurnedEval       int64 `json:"rpm_burned_by_rejected_eval"`
	BurnedProduction int64 `json:"rpm_burned_by_rejected_production"`
	KeyRejected      int64 `json:"key_rejected_429"`
	// EvalLastFinish is the time of the last evaluation job's completion
	// (seconds; 0 if none).
	EvalLastFinish float64 `json:"eval_last_finish_s"`
	// EvalTokens counts the tokens of evaluation tries accepted (whole run).
	EvalTokens float64 `json:"eval_tokens"`
	// Clock is the scenario's wall clock at virtual time 0 (seconds since
	// Monday 00:00), to read times as times of day.
	Clock float64 `json:"clock_s"`
}
