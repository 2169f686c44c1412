package replaycheck

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/sim"
	"github.com/evalsched/lab/workloads"
	"github.com/evalsched/lab/workloads/agentlog"
)

// Inspect's defaults for settings a log leaves unset.
const (
	defaultMaxConnections = 10
)

// Latency is a model's fitted provider latency.
type Latency struct {
	Model      string
	Calls      int // calls with a working time, fitted to
	TTFT       time.Duration
	DecodeRate float64 // tokens per second
	R2         float64 // of the least-squares fit
}

// SampleResult is one sample's recorded and simulated duration.
type SampleResult struct {
	ID                  string
	Recorded, Simulated float64 // seconds
	APE                 float64 // |simulated − recorded| / recorded
	RecordedWait        float64 // seconds calls waited before service, recorded
	SimulatedWait       float64
}

// Report is the check's result.
type Report struct {
	Containers, InflightLimit int
	Settings                  agentlog.Settings
	Latency                   []Latency
	Samples                   []SampleResult
	MdAPE, MAPE, Correlation  float64
	RecordedMakespan          float64
	SimulatedMakespan         float64
	RecordedWait              float64
	SimulatedWait             float64
	Skipped                   []*agentlog.Problem
}

// Check replays the Inspect logs at paths.
func Check(paths []string) (*Report, error) {
	col, err := agentlog.Collect(agentlog.Inspect, paths)
	if err != nil {
		return nil, err
	}
	if len(col.Sessions) == 0 {
		return nil, &agentlog.NoJobsError{Skipped: len(col.Skipped)}
	}
	rep := &Report{Skipped: col.Skipped}
	if s := col.Sessions[0].Settings; s != nil {
		rep.Settings = *s
	}
	conn := rep.Settings.MaxConnections
	if conn == 0 {
		conn = defaultMaxConnections
	}
	samples := rep.Settings.MaxSamples
	if samples == 0 {
		samples = conn + 1
	}
	if rep.Settings.MaxSandboxes > 0 {
		samples = min(samples, rep.Settings.MaxSandboxes)
	}
	rep.Containers, rep.InflightLimit = samples, conn

	// The catalogue: every recorded model, in name order.
	seen := map[string]bool{}
	for _, s := range col.Sessions {
		for _, c := range s.Calls {
			seen[c.Model] = true
		}
	}
	catalogue := slices.Sorted(func(yield func(string) bool) {
		for m := range seen {
			if !yield(m) {
				return
			}
		}
	})
	for _, m := range catalogue {
		rep.Latency = append(rep.Latency, fitLatency(m, col.Sessions))
	}
	jobs, err := col.Jobs(catalogue, nil)
	if err != nil {
		return nil, err
	}
	sessions := map[string]*agentlog.Session{}
	for _, s := range col.Sessions {
		sessions[s.ID] = s
	}
	var end time.Duration
	for _, j := range jobs {
		end = max(end, j.Arrival)
	}
	sc, err := replayScenario(rep, catalogue, end)
	if err != nil {
		return nil, fmt.Errorf("the replay's scenario: %v", err)
	}
	index := map[string]int{}
	for i, m := range catalogue {
		index[m] = i
	}
	src := &jobSource{}
	for i, j := range jobs {
		src.jobs = append(src.jobs, workloads.Job{ID: int64(i), Arrival: j.Arrival, Account: j.Account, Project: j.Project, Batch: j.Batch,
			Model: index[j.Model], Behaviour: workloads.PlanBehaviour(j.Plan), Seed: uint64(i + 1), Judge: -1})
	}
	pol, err := scenario.NewPolicy("fixed-lane", sc)
	if err != nil {
		return nil, err
	}
	w, err := sim.NewWorld(sc, sim.Options{Seed: 1, Policy: pol, Source: src, Log: true})
	if err != nil {
		return nil, err
	}
	if err := w.Run(); err != nil {
		return nil, err
	}
	return rep, rep.compare(jobs, sessions, w.Log())
}

// compare reads the run's event log against the recorded sessions.
func (rep *Report) compare(jobs []agentlog.Job, sessions map[string]*agentlog.Session, log []sim.LogRecord) error {
	arrive := map[policies.JobID]time.Duration{}
	finish := map[policies.JobID]time.Duration{}
	wait := map[policies.JobID]time.Duration{}
	created := map[int64]time.Duration{}
	accepted := map[int64]bool{}
	for _, r := range log {
		t := r.T.Duration()
		switch r.Event {
		case sim.LogJobArrive:
			arrive[r.Job] = t
		case sim.LogJobFinish:
			finish[r.Job] = t
		case sim.LogCallCreate:
			created[r.Call] = t
		case sim.LogCallAccept:
			if !accepted[r.Call] {
				accepted[r.Call] = true
				wait[r.Job] += t - created[r.Call]
			}
		}
	}
	var first, last, simFirst, simLast time.Duration
	for i, j := range jobs {
		id := policies.JobID(i)
		f, ok := finish[id]
		if !ok {
			return fmt.Errorf("sample %s did not finish in the replay", j.ID)
		}
		s := sessions[j.ID]
		recEnd := time.Duration(0)
		recWait := time.Duration(0)
		for _, c := range s.Calls {
			recEnd = max(recEnd, time.Duration(c.End-s.Start))
			if c.Working > 0 {
				recWait += max(0, time.Duration(c.End-c.Start)-c.Working)
			}
		}
		res := SampleResult{ID: j.ID, Recorded: recEnd.Seconds(), Simulated: (f - arrive[id]).Seconds(),
			RecordedWait: recWait.Seconds(), SimulatedWait: wait[id].Seconds()}
		if res.Recorded > 0 {
			res.APE = math.Abs(res.Simulated-res.Recorded) / res.Recorded
		}
		rep.Samples = append(rep.Samples, res)
		rep.RecordedWait += res.RecordedWait
		rep.SimulatedWait += res.SimulatedWait
		if i == 0 {
			first, simFirst = j.Arrival, arrive[id]
		}
		last, simLast = max(last, j.Arrival+recEnd), max(simLast, f)
	}
	rep.RecordedMakespan, rep.SimulatedMakespan = (last - first).Seconds(), (simLast - simFirst).Seconds()
	var apes, rec, simd []float64
	for _, s := range rep.Samples {
		apes = append(apes, s.APE)
		rec, simd = append(rec, s.Recorded), append(simd, s.Simulated)
	}
	rep.MdAPE, rep.MAPE, rep.Correlation = median(apes), meanOf(apes), pearson(rec, simd)
	return nil
}

// fitLatency fits working_time = ttft + out / decode_rate by least squares
// over the model's calls that record a working time. Without a usable
// slope (fewer than 2 calls, or none positive) the mean working time is
// the TTFT and decoding is instant.
func fitLatency(model string, sessions []*agentlog.Session) Latency {
	var xs, ys []float64
	for _, s := range sessions {
		for _, c := range s.Calls {
			if c.Model == model && c.Working > 0 {
				xs, ys = append(xs, float64(c.Out)), append(ys, c.Working.Seconds())
			}
		}
	}
	l := Latency{Model: model, Calls: len(xs), DecodeRate: 1e6}
	if len(xs) == 0 {
		l.TTFT = time.Second
		return l
	}
	mx, my := meanOf(xs), meanOf(ys)
	sxx, sxy, syy := 0.0, 0.0, 0.0
	for i := range xs {
		sxx += (xs[i] - mx) * (xs[i] - mx)
		sxy += (xs[i] - mx) * (ys[i] - my)
		syy += (ys[i] - my) * (ys[i] - my)
	}
	if len(xs) < 2 || sxx == 0 || sxy <= 0 || my-sxy/sxx*mx <= 0 {
		l.TTFT = time.Duration(my * 1e9)
		return l
	}
	b := sxy / sxx
	l.TTFT = time.Duration((my - b*mx) * 1e9)
	l.DecodeRate = 1 / b
	if syy > 0 {
		l.R2 = sxy * sxy / (sxx * syy)
	}
	return l
}

// replayScenario builds the replay's scenario (see the package documentation).
func replayScenario(rep *Report, catalogue []string, lastArrival time.Duration) (*scenario.Scenario, error) {
	var b strings.Builder
	dur := lastArrival + 48*time.Hour
	fmt.Fprintf(&b, "name: replay-check\nduration: %ds\nwarmup: 0s\n", int64(dur.Seconds())+1)
	fmt.Fprintf(&b, "containers: {capacity: %d, startup: 0s, price_per_hour: 0}\n", rep.Containers)
	fmt.Fprintf(&b, "organisations: [{name: none}]\n")
	fmt.Fprintf(&b, "model_defaults: {org: none, streams: 100000, inflight_limit: %d, jitter: {dist: none}}\nmodels:\n", rep.InflightLimit)
	for _, l := range rep.Latency {
		fmt.Fprintf(&b, "  - {name: %q, ttft: %dns, decode_rate: %g}\n", l.Model, l.TTFT.Nanoseconds(), l.DecodeRate)
	}
	fmt.Fprintf(&b, "workload:\n  accounts: 1\n  projects_per_account: 1\n  models: {hot: [%q], hot_share: 1}\n", catalogue[0])
	fmt.Fprintf(&b, "  batches: {rate_per_hour: 0}\n  background: {rate_per_hour: 0}\n  behaviours: {replay: {turns: 1}}\n")
	fmt.Fprintf(&b, "policies:\n  fixed_lane: {global_cap: %d}\n", rep.Containers)
	return scenario.ParseScenario("replay-check", []byte(b.String()))
}

type jobSource struct {
	jobs []workloads.Job
	i    int
}

func (s *jobSource) Next() (workloads.Job, bool) {
	if s.i >= len(s.jobs) {
		return workloads.Job{}, false
	}
	s.i++
	return s.jobs[s.i-1], true
}

func (s *jobSource) Err() error { return nil }

func meanOf(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

func pearson(x, y []float64) float64 {
	if len(x) < 2 {
		return math.NaN()
	}
	mx, my := meanOf(x), meanOf(y)
	sxy, sxx, syy := 0.0, 0.0, 0.0
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}
