package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/workloads"
)

// TestTraceRoundTrip: generate → write a trace → replay it gives the same
// summary, byte for byte, as the run that generated it, in both formats.
func TestTraceRoundTrip(t *testing.T) {
	sc := smallScenario(t, nil)
	const seed = 21
	want := summaryJSON(t, sc, seed)
	for _, format := range workloads.TraceFormats {
		t.Run(string(format), func(t *testing.T) {
			gen, err := workloads.NewGenerator(sc.Workload, sc.Catalogue(), sc.Duration, seed)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			n, err := workloads.WriteTrace(&buf, format, gen, sc.Catalogue(), workloads.ClassNames(gen.Classes()))
			if err != nil {
				t.Fatal(err)
			}
			if n < 1000 {
				t.Fatalf("only %d jobs in the trace", n)
			}
			var runs []results.Run
			for _, p := range scenario.PolicyNames() {
				r := workloads.NewTraceReader(bytes.NewReader(buf.Bytes()), "trace."+string(format), format, sc.Catalogue(), gen.Classes(), workloads.TraceOptions{})
				w, err := Execute(sc, RunSpec{Policy: p, Seed: seed, Source: r})
				if err != nil {
					t.Fatal(err)
				}
				runs = append(runs, results.Summarize(w.Measured()))
			}
			got, err := json.Marshal(results.Summary{Scenario: sc.Name, Seed: seed, Runs: runs})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, got) {
				t.Fatalf("replayed %s trace gives a different summary (%d vs %d bytes)", format, len(got), len(want))
			}
		})
	}
}

// failingSource gives its jobs, then ends with err.
type failingSource struct {
	jobSlice
	err error
}

func (s *failingSource) Err() error {
	if len(s.jobs) == 0 {
		return s.err
	}
	return nil
}

// TestFailedStreamStopsTheRun: a job stream that ends with an error (a bad
// record, or a trace its validation refused beside the run) stops the run
// when it fails, with that error, rather than simulating on to the end.
func TestFailedStreamStopsTheRun(t *testing.T) {
	sc := smallScenario(t, nil)
	gen, err := workloads.NewGenerator(sc.Workload, sc.Catalogue(), sc.Duration, 3)
	if err != nil {
		t.Fatal(err)
	}
	var jobs []workloads.Job
	for job, ok := gen.Next(); ok && job.Arrival < sc.Duration/4; job, ok = gen.Next() {
		jobs = append(jobs, job)
	}
	if len(jobs) < 10 {
		t.Fatalf("only %d jobs in the first quarter", len(jobs))
	}
	last := jobs[len(jobs)-1].Arrival
	broken := errors.New("line 12345: model: unknown model")
	for _, p := range scenario.PolicyNames() {
		w := newWorld(t, sc, p, Options{Seed: 3, Source: &failingSource{jobSlice{jobs: jobs}, broken}})
		if err := w.Run(); !errors.Is(err, broken) {
			t.Fatalf("%s: the run ended with %v, want the stream's error", p, err)
		}
		if now, want := w.now(), FromDuration(last); now != want {
			t.Errorf("%s: the run stopped at %v, want %v (the last job's arrival, when the stream failed)", p, now.Duration(), want.Duration())
		}
	}
}

// closingSource is a jobSlice that records being closed.
type closingSource struct {
	jobSlice
	closed *atomic.Int32
}

func (s *closingSource) Close() error { s.closed.Add(1); return nil }

// TestExecuteAllClosesWhatItOpened: every stream ExecuteAll opens for a run
// is closed when the run ends, whether the run read it to its end or not
// (a trace longer than the scenario).
func TestExecuteAllClosesWhatItOpened(t *testing.T) {
	sc := smallScenario(t, nil)
	gen, err := workloads.NewGenerator(sc.Workload, sc.Catalogue(), 2*sc.Duration, 5)
	if err != nil {
		t.Fatal(err)
	}
	var jobs []workloads.Job
	for job, ok := gen.Next(); ok; job, ok = gen.Next() {
		jobs = append(jobs, job)
	}
	var opened, closed atomic.Int32
	open := func() (workloads.Source, error) {
		opened.Add(1)
		return &closingSource{jobSlice{jobs: jobs}, &closed}, nil
	}
	specs := []RunSpec{{Policy: "fixed-lane", Seed: 5}, {Policy: "scheduler", Seed: 5}, {Policy: "scheduler", Seed: 6}}
	if _, err := ExecuteAll(sc, specs, open); err != nil {
		t.Fatal(err)
	}
	if opened.Load() != int32(len(specs)) || closed.Load() != opened.Load() {
		t.Errorf("%d streams opened, %d closed; want %d and %d", opened.Load(), closed.Load(), len(specs), len(specs))
	}
}
