package results

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// SchemaVersion is the version of summary.json; it changes when a field
// changes meaning or disappears (adding fields keeps it).
const SchemaVersion = 1

// RunData is one run as the simulator measured it.
type RunData struct {
	Policy        string
	WindowStart   float64 // seconds
	WindowEnd     float64
	PricePerHour  float64 // per container-hour
	Lanes         []LaneRaw
	Series        []SeriesRow
	Events        uint64
	JobsArrived   int64 // whole run, including warm-up
	JobsCompleted int64
	Models        []string // the catalogue, for series rows
	Fairness      FairnessData
	Disturbances  []Disturbance
	BatchProgress []BatchProgressRow
	Production    []ProductionStats
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
	// Invocation is how sim was asked for these outputs (report's reproduce line).
	Invocation *Invocation `json:"invocation,omitempty"`
}

// Run is one policy's results.
type Run struct {
	Policy string `json:"policy"`
	// Window is the measurement window [start, end] in seconds.
	Window [2]float64 `json:"window_s"`
	Events uint64     `json:"events"`
	// JobsArrived and JobsCompleted count the whole run, warm-up included.
	JobsArrived   int64           `json:"jobs_arrived"`
	JobsCompleted int64           `json:"jobs_completed"`
	Total         Lane            `json:"total"`
	Lanes         []Lane          `json:"lanes"`
	Fairness      FairnessSummary `json:"fairness"`
	// Production is each replayed production stream (whole run).
	Production  []ProductionStats `json:"production,omitempty"`
	Convergence []ConvergenceRow  `json:"convergence"`
	// Disturbances are the start, bursts and capacity events of the scenario.
	Disturbances []Disturbance `json:"disturbances"`
}

// Lane is one model's metrics over the measurement window.
type Lane struct {
	Model             string  `json:"model"`
	Arrived           int64   `json:"arrived"`
	Started           int64   `json:"started"`
	Completed         int64   `json:"completed"`
	ThroughputPerHour float64 `json:"throughput_per_hour"`
	JobTime           Split   `json:"job_time_s"`
	// WaitShare is the share of all completed jobs' time spent waiting
	// (queued + container start + gateway); P90WaitShare is that share for
	// the job at the 90th percentile of job time.
	WaitShare    float64 `json:"wait_share"`
	P90WaitShare float64 `json:"p90_wait_share"`

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

// NewStats computes the statistics of xs (which it sorts).
func NewStats(xs []float64) Stats {
	if len(xs) == 0 {
		return Stats{}
	}
	sort.Float64s(xs)
	return Stats{
		Mean: stat.Mean(xs, nil),
		P50:  stat.Quantile(0.5, stat.Empirical, xs, nil),
		P90:  stat.Quantile(0.9, stat.Empirical, xs, nil),
		P99:  stat.Quantile(0.99, stat.Empirical, xs, nil),
	}
}

// Summarize turns a run's measurements into its summary. Lanes with no job
// in the whole run are left out; the total covers every model.
func Summarize(d RunData) Run {
	run := Run{Policy: d.Policy, Window: [2]float64{d.WindowStart, d.WindowEnd}, Events: d.Events,
		JobsArrived: d.JobsArrived, JobsCompleted: d.JobsCompleted}
	all := LaneRaw{Model: "(all)"}
	for _, raw := range d.Lanes {
		all.add(raw)
		if raw.Arrived+raw.Started+raw.Completed+raw.Calls == 0 && raw.RunningArea == 0 {
			continue
		}
		run.Lanes = append(run.Lanes, lane(raw, d))
	}
	run.Total = lane(all, d)
	run.Fairness = summarizeFairness(d.Fairness)
	for _, p := range d.Production {
		p.LatencyMean = ratio(p.LatencySum, float64(p.Answered))
		run.Production = append(run.Production, p)
	}
	run.Convergence = Convergence(d.Series, d.Models, d.Disturbances, d.WindowEnd)
	run.Disturbances = append([]Disturbance{}, d.Disturbances...)
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
	a.Times = append(a.Times, b.Times...)
	a.Calls += b.Calls
	a.Rejected429 += b.Rejected429
	a.Errors += b.Errors
	a.Failed += b.Failed
	a.QueueEntries += b.QueueEntries
	a.QueueWaitSum += b.QueueWaitSum
	a.DepthArea += b.DepthArea
	a.BusyArea += b.BusyArea
	a.RunningArea += b.RunningArea
	a.GatewayOnlyArea += b.GatewayOnlyArea
}

func lane(raw LaneRaw, d RunData) Lane {
	span := d.WindowEnd - d.WindowStart
	l := Lane{
		Model: raw.Model, Arrived: raw.Arrived, Started: raw.Started, Completed: raw.Completed,
		ThroughputPerHour:           ratio(float64(raw.Completed), span/3600),
		ContainerSeconds:            raw.RunningArea,
		GatewayWaitContainerSeconds: raw.GatewayOnlyArea,
		ContainerCost:               raw.RunningArea / 3600 * d.PricePerHour,
		MeanRunning:                 ratio(raw.RunningArea, span),
		Calls:                       raw.Calls, Rejected429: raw.Rejected429, Errors: raw.Errors, FailedCalls: raw.Failed,
		GatewayDepth:        ratio(raw.DepthArea, span),
		CallQueueWait:       ratio(raw.QueueWaitSum, float64(raw.QueueEntries)),
		CallQueueRate:       ratio(float64(raw.QueueEntries), span),
		ProviderUtilisation: ratio(raw.BusyArea, span*float64(raw.Streams)),
	}
	n := len(raw.Times)
	parts := make([][]float64, 6)
	for i := range parts {
		parts[i] = make([]float64, n)
	}
	var wait, total float64
	type jobTotal struct{ total, wait float64 }
	byTotal := make([]jobTotal, n)
	for i, t := range raw.Times {
		parts[0][i] = t.Total()
		parts[1][i], parts[2][i], parts[3][i] = float64(t.Queued), float64(t.Start), float64(t.Gateway)
		parts[4][i], parts[5][i] = float64(t.LLM), float64(t.Tool)
		wait += t.Waiting()
		total += t.Total()
		byTotal[i] = jobTotal{t.Total(), t.Waiting()}
	}
	l.WaitShare = ratio(wait, total)
	if n > 0 {
		sort.SliceStable(byTotal, func(a, b int) bool { return byTotal[a].total < byTotal[b].total })
		p90 := byTotal[int(math.Ceil(0.9*float64(n)))-1]
		l.P90WaitShare = ratio(p90.wait, p90.total)
	}
	l.JobTime = Split{Total: NewStats(parts[0]), Queued: NewStats(parts[1]), Start: NewStats(parts[2]),
		Gateway: NewStats(parts[3]), LLM: NewStats(parts[4]), Tool: NewStats(parts[5])}
	return l
}

// ratio is a/b, or 0 when b is 0 (no NaN ever reaches the JSON).
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// WriteJSON writes v as indented JSON to path atomically (a temporary file
// renamed into place), so a failed run never leaves half a file.
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(data, '\n'))
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory.
func WriteFileAtomic(path string, data []byte) error {
	return WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteAtomic streams write's output (buffered) into a temporary file in
// path's directory and renames it into place only if everything succeeded,
// so a failure leaves neither half a file nor the temporary one.
func WriteAtomic(path string, write func(w io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	if err = write(w); err != nil {
		return err
	}
	if err = w.Flush(); err != nil {
		return err
	}
	// CreateTemp makes the file private; outputs are ordinary files.
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// FairnessSummary is a run's fairness: Jain's index per window over the
// projects that stayed backlogged, the share of admissions (in the
// measurement window) per tier, and the makespan of small batches (at most
// SmallBatch jobs, per the simulator) overall and of those that arrived while
// a large batch of the same model had jobs waiting.
type FairnessSummary struct {
	JainMean            float64            `json:"jain_mean"`
	Windows             []FairnessWindow   `json:"windows"`
	TierShares          map[string]float64 `json:"tier_shares"`
	SmallBatches        int                `json:"small_batches"`
	SmallUnfinished     int                `json:"small_batches_unfinished"`
	SmallMakespan       Stats              `json:"small_batch_makespan_s"`
	BehindLarge         int                `json:"small_batches_behind_large"`
	BehindLargeMakespan Stats              `json:"small_behind_large_makespan_s"`
}

func summarizeFairness(d FairnessData) FairnessSummary {
	f := FairnessSummary{Windows: d.Windows, TierShares: map[string]float64{}}
	if f.Windows == nil {
		f.Windows = []FairnessWindow{}
	}
	n := 0
	for _, w := range d.Windows {
		if w.Backlogged >= 2 {
			f.JainMean += w.Jain
			n++
		}
	}
	f.JainMean = ratio(f.JainMean, float64(n))
	var total int64
	for _, v := range d.TierAdmitted {
		total += v
	}
	for k, v := range d.TierAdmitted {
		f.TierShares[k] = ratio(float64(v), float64(total))
	}
	var all, behind []float64
	for _, b := range d.SmallBatches {
		f.SmallBatches++
		if b.BehindLarge {
			f.BehindLarge++
		}
		if b.Done < b.Jobs {
			f.SmallUnfinished++
			continue
		}
		all = append(all, b.Makespan)
		if b.BehindLarge {
			behind = append(behind, b.Makespan)
		}
	}
	f.SmallMakespan, f.BehindLargeMakespan = NewStats(all), NewStats(behind)
	return f
}
