package results

import (
	"math"
	"slices"

	"github.com/evalsched/lab/internal/quantile"
	"gonum.org/v1/gonum/stat"
)

// SchemaVersion is the version of summary.json; it changes when a field
// changes meaning or disappears (adding fields keeps it), or when a reader
// must refuse a summary that lacks a field (version 2: files).
const SchemaVersion = 2

// RunData is one run as the simulator measured it.
type RunData struct {
	Policy       string      // the run's name: the policy, or the variant's name
	Variant      *RunVariant // set when the run is a scenario variant
	WindowStart  float64     // seconds
	WindowEnd    float64
	PricePerHour float64 // per container-hour
	// Billing: the scenario prices tokens or caches prompts; each lane then
	// has its bill.
	Billing       bool
	Lanes         []LaneRaw
	Series        []SeriesRow
	Events        uint64
	JobsArrived   int64 // whole run, including warm-up
	JobsCompleted int64
	Models        []string // the catalogue, for series rows
	Fairness      FairnessData
	Disturbances  []Disturbance
	Targets       []float64 // target gateway depth per model (nil: none)
	BatchProgress []BatchProgressRow
	Production    []ProductionStats
	JobsFailed    int64
	QuotaUse      []QuotaUse
	Quota         *QuotaRun
	Alerts        []AlertEpisode
	Guards        *GuardStats
	BatchLanes    []BatchLaneRaw
}

// Summary is the content of summary.json.
type Summary struct {
	Schema        string `json:"schema"`
	SchemaVersion int    `json:"schema_version"`
	Scenario      string `json:"scenario"`
	Seed          uint64 `json:"seed"`
	Runs          []Run  `json:"runs"`
	// Comparison pairs runs[0] (baseline, "old") with runs[1] ("new") by
	// lane; only sim compare writes it.
	Comparison []LaneComparison `json:"comparison,omitempty"`
	// Seeds and MultiplierAcrossSeeds: with compare --seeds K, the seeds run
	// and each lane's multiplier over them (runs and comparison hold the
	// first seed).
	Seeds                 []uint64         `json:"seeds,omitempty"`
	MultiplierAcrossSeeds []MultiplierStat `json:"multiplier_across_seeds,omitempty"`
	// Variants: with compare --variant A --variant B …, every variant after
	// the first against the first (comparison above is the first pair).
	Variants []VariantComparison `json:"variants,omitempty"`
	// Invocation is how sim was asked for these outputs (report's reproduce line).
	Invocation *Invocation `json:"invocation,omitempty"`
	// Files are the folder's row files as sim wrote them (series.csv,
	// batches.csv): a reader checks each against its rows and digest.
	Files []RowFile `json:"files"`
}

// VariantComparison is one variant against the baseline variant, by lane.
type VariantComparison struct {
	Baseline              string           `json:"baseline"`
	Variant               string           `json:"variant"`
	Comparison            []LaneComparison `json:"comparison"`
	MultiplierAcrossSeeds []MultiplierStat `json:"multiplier_across_seeds,omitempty"`
}

// RunVariant is the scenario variant a run was: its name and the policy it
// ran.
type RunVariant struct {
	Name   string `json:"name"`
	Policy string `json:"policy"`
}

// Run is one policy's results.
type Run struct {
	// Policy names the run: the policy, or the variant's name when scenario
	// variants are compared (then Variant says which policy it ran).
	Policy  string      `json:"policy"`
	Variant *RunVariant `json:"variant,omitempty"`
	// Window is the measurement window [start, end] in seconds.
	Window [2]float64 `json:"window_s"`
	Events uint64     `json:"events"`
	// JobsArrived and JobsCompleted count the whole run, warm-up included.
	JobsArrived   int64 `json:"jobs_arrived"`
	JobsCompleted int64 `json:"jobs_completed"`
	// Total ("(all)") covers the evaluation lanes: every lane that is not
	// a grading lane. Grading covers the grading lanes (the judges' models,
	// LaneRaw.Grading), reported apart; omitted when the run has none.
	Total    Lane            `json:"total"`
	Grading  *Lane           `json:"grading,omitempty"`
	Lanes    []Lane          `json:"lanes"`
	Fairness FairnessSummary `json:"fairness"`
	// Production is each replayed production stream (whole run).
	Production  []ProductionStats `json:"production,omitempty"`
	Convergence []ConvergenceRow  `json:"convergence"`
	// Disturbances are the start, bursts and capacity events of the scenario.
	Disturbances []Disturbance `json:"disturbances"`
	// JobsFailed counts jobs ended by a call larger than a quota window
	// (whole run); omitted when 0.
	JobsFailed int64 `json:"jobs_failed,omitempty"`
	// QuotaUse is the run's quota telemetry (daily quotas with any use).
	QuotaUse []QuotaUse `json:"quota,omitempty"`
	// Quota is retry burn and virtual-key figures (scenarios with
	// production traffic or keys); Alerts the quota alert's episodes;
	// Guards what the policy's guards did.
	Quota  *QuotaRun      `json:"quota_run,omitempty"`
	Alerts []AlertEpisode `json:"alerts,omitempty"`
	Guards *GuardStats    `json:"guards,omitempty"`
	// BatchLanes is each batch pool (scenarios with organisations[].batch).
	BatchLanes []BatchLane `json:"batch_lanes,omitempty"`
}

// Lane is one model's metrics over the measurement window.
type Lane struct {
	Model string `json:"model"`
	// Grading says the lane is a grading lane (LaneRaw.Grading): the run's
	// own classification, which its total (evaluation) and grading rows,
	// the headline and the report all read.
	Grading           bool    `json:"grading,omitempty"`
	Arrived           int64   `json:"arrived"`
	Started           int64   `json:"started"`
	Completed         int64   `json:"completed"`
	ThroughputPerHour float64 `json:"throughput_per_hour"`
	// TokensPerHour is the input + output tokens of the lane's calls
	// answered in the window, per hour: under a binding token quota, the
	// share of the quota the lane turned into work, which jobs/h alone
	// does not tell (it also depends on which jobs were served).
	TokensPerHour float64 `json:"tokens_per_hour"`
	JobTime       Split   `json:"job_time_s"`
	// WaitShare is the share of all completed jobs' time spent waiting
	// (queued + container start + gateway); P90WaitShare is that share for
	// the job at the 90th percentile of job time.
	WaitShare    float64 `json:"wait_share"`
	P90WaitShare float64 `json:"p90_wait_share"`
	// The same p90 job's time split into the three states the source
	// measured the old system by (they add up to 1): P90ContainerWaitShare
	// is its queued + container_start share (arrival → container ready:
	// waiting for a container), P90GatewayWaitShare its gateway_wait share
	// (holding a container with every call queued or backing off),
	// P90RunningShare the rest (llm, tool).
	P90ContainerWaitShare float64 `json:"p90_container_wait_share"`
	P90GatewayWaitShare   float64 `json:"p90_gateway_wait_share"`
	P90RunningShare       float64 `json:"p90_running_share"`

	ContainerSeconds            float64 `json:"container_seconds"`
	GatewayWaitContainerSeconds float64 `json:"gateway_wait_container_seconds"`
	ContainerCost               float64 `json:"container_cost"`
	MeanRunning                 float64 `json:"mean_running"`

	Calls        int64   `json:"calls"`
	Rejected429  int64   `json:"rejected_429"`
	Errors       int64   `json:"errors_outage"`
	FailedCalls  int64   `json:"failed_calls"`
	GatewayDepth float64 `json:"gateway_depth_mean"`
	// CallQueueWait is the mean time a call try waited in the gateway queue;
	// CallQueueRate is tries entering service from the queue per second.
	CallQueueWait       float64 `json:"call_queue_wait_mean_s"`
	CallQueueRate       float64 `json:"call_queue_rate_per_s"`
	ProviderUtilisation float64 `json:"provider_utilisation"`
	// HeadroomCaptured is the busy stream-seconds over the stream-seconds the
	// provider offered (after capacity events): the lane's throughput over
	// the throughput its streams allow at the measured per-call service.
	HeadroomCaptured float64 `json:"headroom_captured"`
	// Bill is the lane's cost in tokens and containers (with Billing).
	Bill *Bill `json:"bill,omitempty"`
}

// Split is the job time and its parts, each as distribution statistics.
type Split struct {
	Total   Stats `json:"total"`
	Queued  Stats `json:"queued"`
	Start   Stats `json:"container_start"`
	Gateway Stats `json:"gateway_wait"`
	LLM     Stats `json:"llm"`
	Tool    Stats `json:"tool"`
}

// Stats is the mean and percentiles of a sample (0 for an empty one).
type Stats struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
}

// NewStats computes the statistics of xs (which it sorts with slices.Sort).
// The mean is summed over the sorted values, so it does not depend on the
// order of xs; the percentiles are exact (the empirical quantile).
func NewStats(xs []float64) Stats {
	if len(xs) == 0 {
		return Stats{}
	}
	sortFloats(xs)
	return Stats{
		Mean: stat.Mean(xs, nil),
		P50:  empiricalQuantile(0.5, xs),
		P90:  empiricalQuantile(0.9, xs),
		P99:  empiricalQuantile(0.99, xs),
	}
}

// empiricalQuantile is stat.Quantile(p, stat.Empirical, sorted, nil) read at
// its index instead of found by three passes over the sample (a NaN check,
// a sortedness check and a running count): the first x[i] whose count i+1
// reaches p·n, NaN if the sample holds one. sorted must be in sortFloats'
// order. TestEmpiricalQuantileMatchesGonum compares the two.
func empiricalQuantile(p float64, sorted []float64) float64 {
	if len(sorted) > 0 && math.IsNaN(sorted[0]) { // sortFloats puts NaNs first
		return math.NaN()
	}
	return sorted[quantile.Rank(len(sorted), p)]
}

// Summarize turns a run's measurements into its summary. Lanes with no job
// in the whole run are left out; the total covers every evaluation lane,
// the grading total every grading lane.
func Summarize(d RunData) Run {
	run := Run{Policy: d.Policy, Variant: d.Variant, Window: [2]float64{d.WindowStart, d.WindowEnd}, Events: d.Events,
		JobsArrived: d.JobsArrived, JobsCompleted: d.JobsCompleted, JobsFailed: d.JobsFailed}
	all, grading := LaneRaw{Model: AllLanes}, LaneRaw{Model: GradingLanes, Grading: true}
	times := make([][]JobTimes, 0, len(d.Lanes))
	var gradingTimes [][]JobTimes
	graded := false
	for _, raw := range d.Lanes {
		if raw.Grading {
			graded = true
			grading.add(raw)
			gradingTimes = append(gradingTimes, raw.Times)
		} else {
			all.add(raw)
			times = append(times, raw.Times)
		}
		if raw.Arrived+raw.Started+raw.Completed+raw.Calls == 0 && raw.RunningArea == 0 {
			continue
		}
		run.Lanes = append(run.Lanes, lane(raw, [][]JobTimes{raw.Times}, d))
	}
	run.Total = lane(all, times, d)
	if graded {
		g := lane(grading, gradingTimes, d)
		run.Grading = &g
	}
	run.Fairness = summarizeFairness(d.Fairness)
	for _, p := range d.Production {
		p.LatencyMean = Ratio(p.LatencySum, float64(p.Answered))
		run.Production = append(run.Production, p)
	}
	run.Convergence = Convergence(d.Series, d.Models, d.Targets, d.Disturbances, d.WindowEnd)
	run.Disturbances = append([]Disturbance{}, d.Disturbances...)
	run.QuotaUse, run.Quota, run.Alerts, run.Guards = d.QuotaUse, d.Quota, d.Alerts, d.Guards
	for _, b := range d.BatchLanes {
		run.BatchLanes = append(run.BatchLanes, summarizeBatch(b, (d.WindowEnd-d.WindowStart)/3600))
	}
	if run.Convergence == nil {
		run.Convergence = []ConvergenceRow{}
	}
	return run
}

func (a *LaneRaw) add(b LaneRaw) {
	a.Streams += b.Streams
	a.Arrived += b.Arrived
	a.Started += b.Started
	a.Completed += b.Completed
	a.Calls += b.Calls
	a.Tokens += b.Tokens
	a.Rejected429 += b.Rejected429
	a.Errors += b.Errors
	a.Failed += b.Failed
	a.QueueEntries += b.QueueEntries
	a.QueueWaitSum += b.QueueWaitSum
	a.DepthArea += b.DepthArea
	a.BusyArea += b.BusyArea
	a.StreamArea += b.StreamArea
	a.RunningArea += b.RunningArea
	a.GatewayOnlyArea += b.GatewayOnlyArea
	a.Bill.add(b.Bill)
}

// lane computes one lane's metrics; times are its jobs' time splits, in
// completion order (raw.Times is not read).
func lane(raw LaneRaw, times [][]JobTimes, d RunData) Lane {
	span := d.WindowEnd - d.WindowStart
	l := Lane{
		Model: raw.Model, Grading: raw.Grading, Arrived: raw.Arrived, Started: raw.Started, Completed: raw.Completed,
		ThroughputPerHour:           Ratio(float64(raw.Completed), span/3600),
		TokensPerHour:               Ratio(raw.Tokens, span/3600),
		ContainerSeconds:            raw.RunningArea,
		GatewayWaitContainerSeconds: raw.GatewayOnlyArea,
		ContainerCost:               raw.RunningArea / 3600 * d.PricePerHour,
		MeanRunning:                 Ratio(raw.RunningArea, span),
		Calls:                       raw.Calls, Rejected429: raw.Rejected429, Errors: raw.Errors, FailedCalls: raw.Failed,
		GatewayDepth:        Ratio(raw.DepthArea, span),
		CallQueueWait:       Ratio(raw.QueueWaitSum, float64(raw.QueueEntries)),
		CallQueueRate:       Ratio(float64(raw.QueueEntries), span),
		ProviderUtilisation: Ratio(raw.BusyArea, span*float64(raw.Streams)),
		HeadroomCaptured:    Ratio(raw.BusyArea, raw.StreamArea),
	}
	var p90 JobTimes
	l.JobTime, l.WaitShare, p90 = splitStats(times)
	if tot := p90.Total(); tot > 0 {
		l.P90WaitShare = p90.Waiting() / tot
		l.P90ContainerWaitShare = (float64(p90.Queued) + float64(p90.Start)) / tot
		l.P90GatewayWaitShare = float64(p90.Gateway) / tot
		l.P90RunningShare = (float64(p90.LLM) + float64(p90.Tool)) / tot
	}
	if d.Billing {
		l.Bill = newBill(raw.Bill, l.ContainerCost, raw.Completed)
	}
	return l
}

// AllLanes and GradingLanes name the evaluation total and the grading
// total in tables.
const (
	AllLanes     = "(all)"
	GradingLanes = "(grading)"
)

// splitStats summarises the job time split of the jobs in lanes, taken in
// order (the "(all)" lane passes every lane's jobs without copying them).
// Each part is gathered into one float64 buffer and sorted (slices.Sort);
// the mean sums the sorted values, as NewStats does, and the percentiles
// are read at their ranks, so they are exact. The p90 wait share is that of
// the job a stable sort by total time would put at the 90th percentile,
// found by a linear scan instead of sorting the jobs; p90 is that job.
func splitStats(lanes [][]JobTimes) (split Split, waitShare float64, p90 JobTimes) {
	n := 0
	var wait, total float64
	for _, ts := range lanes {
		n += len(ts)
		for _, t := range ts {
			wait += t.Waiting()
			total += t.Total()
		}
	}
	waitShare = Ratio(wait, total)
	if n == 0 {
		return Split{}, waitShare, JobTimes{}
	}
	buf := make([]float64, 0, n)
	part := func(f func(JobTimes) float64) Stats {
		buf = buf[:0]
		for _, ts := range lanes {
			for _, t := range ts {
				buf = append(buf, f(t))
			}
		}
		return NewStats(buf)
	}
	split = Split{Queued: part(func(t JobTimes) float64 { return float64(t.Queued) }),
		Start:   part(func(t JobTimes) float64 { return float64(t.Start) }),
		Gateway: part(func(t JobTimes) float64 { return float64(t.Gateway) }),
		LLM:     part(func(t JobTimes) float64 { return float64(t.LLM) }),
		Tool:    part(func(t JobTimes) float64 { return float64(t.Tool) })}
	split.Total = part(JobTimes.Total) // last: buf keeps the sorted totals
	p90 = stableRank(lanes, buf, quantile.Rank(n, 0.9))
	return split, waitShare, p90
}

// stableRank returns the job at rank k (0-based) of a stable sort of the
// jobs of lanes (taken in order) by total time, given their totals sorted.
// Jobs tied with it keep their order, so it is the (k − c)-th job, in order,
// of those whose total equals the k-th smallest, c being how many are
// smaller.
func stableRank(lanes [][]JobTimes, sorted []float64, k int) JobTimes {
	v := sorted[k]
	c, _ := slices.BinarySearch(sorted, v)
	skip := k - c
	for _, ts := range lanes {
		for _, t := range ts {
			if t.Total() == v {
				if skip == 0 {
					return t
				}
				skip--
			}
		}
	}
	panic("results: stableRank: rank not found")
}

// Ratio is a/b, or 0 when b is 0 (no NaN ever reaches the JSON).
func Ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
