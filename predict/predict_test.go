package predict

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/evalsched/lab/sim"
	"github.com/evalsched/lab/workloads/agentlog"
	"github.com/google/go-cmp/cmp"
)

// realRuns are the 18 MIT-licensed Inspect logs of ../shared/realruns,
// shipped with their provenance (testdata/realruns/README.md).
const realRuns = "testdata/realruns"

func checkRealRuns(t *testing.T) *Report {
	t.Helper()
	rep, err := Check([]string{realRuns}, Options{Seeds: 20})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestRealRunsPredicted holds the prediction to its goals over the real
// runs (a run is a process: the logs of one run_id together): the median
// absolute error of the makespan and of the mean calls at the provider at
// most 10%, every run of 50 calls or more within 20%, and the recorded
// makespan inside the 90% interval for at least 80% of the runs.
func TestRealRunsPredicted(t *testing.T) {
	rep := checkRealRuns(t)
	if len(rep.Runs) != 12 {
		t.Fatalf("%d runs, want 12 processes (18 logs: an eval of three tasks and two eval-sets of three logs each)", len(rep.Runs))
	}
	for _, name := range []string{"makespan_s", "in_flight_mean"} {
		a := rep.Summary[name]
		t.Logf("%s: median |error| %.3f, p90 %.3f, inside the 90%% interval %d of %d, runs of >= 50 calls within 20%%: %d of %d",
			name, *a.MedianAbs, *a.P90Abs, a.Covered, a.Runs, a.LargeWithin, a.LargeRuns)
		if *a.MedianAbs > 0.10 {
			t.Errorf("%s: median absolute error %.3f > 0.10", name, *a.MedianAbs)
		}
		if a.LargeWithin != a.LargeRuns {
			t.Errorf("%s: %d of %d runs of 50 calls or more within 20%%", name, a.LargeWithin, a.LargeRuns)
		}
	}
	// The recorded makespan inside the 90% interval for at least 80% of
	// the runs (small runs, whose makespan is one slow call, are judged
	// by this alone).
	if a := rep.Summary["makespan_s"]; 5*a.Covered < 4*a.Runs {
		t.Errorf("makespan inside the 90%% interval in %d of %d runs, want at least 80%%", a.Covered, a.Runs)
	}
	for _, r := range rep.Runs {
		// No pool over its limit: the most calls at once never exceeds the
		// pool, shared by every task of the process.
		pools := map[string]bool{}
		for _, f := range r.Fits {
			pools[poolOf(r.Harness, f.Model)] = true
		}
		if lim := float64(r.Harness.MaxConnections * len(pools)); r.Figures.InFlightMax.Interval[1] > lim {
			t.Errorf("run %s: %g calls at once over %d pools of max_connections %d", r.Run, r.Figures.InFlightMax.Interval[1], len(pools), r.Harness.MaxConnections)
		}
	}
}

// TestOneProcessOnePool: the three logs of the 2025-09-23 process share
// one gpt-4o-mini pool of 10; replayed together, the calls at the provider
// never exceed 10 while the three tasks run at once.
func TestOneProcessOnePool(t *testing.T) {
	rep, err := Check([]string{realRuns + "/2025-09-23T08-09-58-04-00_popularity_DN2wbX2ZvACsBpjwptzBRo.eval",
		realRuns + "/2025-09-23T08-09-58-04-00_security-guide_LuxZJVwvymC3S3SyoJczxB.eval",
		realRuns + "/2025-09-23T08-09-58-04-00_theory-of-mind_bbB4eRCx2rFJLyPH42Cj9r.eval"}, Options{Seeds: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || len(rep.Runs[0].Logs) != 3 {
		t.Fatalf("want one run of 3 logs, got %d runs", len(rep.Runs))
	}
	r := rep.Runs[0]
	if r.Harness.MaxTasks != 4 || r.Harness.MaxConnections != 10 {
		t.Errorf("harness %+v, want max_tasks 4 (set) and max_connections 10 (default)", r.Harness)
	}
	if got := r.Figures.InFlightMax.Predicted; got != 10 {
		t.Errorf("most calls at once %g, want 10 (the shared pool, full)", got)
	}
	// The pool is shared: many calls wait for a connection (recorded 4.65
	// on average); three separate pools would leave almost none waiting.
	if w := r.Figures.WaitingMean.Predicted; w < 2 {
		t.Errorf("mean calls waiting %g: the tasks do not share their pool", w)
	}
}

// TestDeterministic: the same logs and seeds give byte-identical reports.
func TestDeterministic(t *testing.T) {
	var out [2][]byte
	for i := range out {
		rep, err := Check([]string{realRuns + "/2025-09-15T15-07-21-04-00_popularity_TrR56PVX4fHPUViCDMPg8g.eval"}, Options{Seeds: 4})
		if err != nil {
			t.Fatal(err)
		}
		out[i], _ = json.Marshal(rep)
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Fatal("two checks of one log differ")
	}
}

// TestNotRecordedIsNull: a log of inspect_ai 0.3.58 records no call's end:
// the calls waiting for a connection are not recorded there (null), never 0.
func TestNotRecordedIsNull(t *testing.T) {
	rep, err := Check([]string{realRuns + "/2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval"}, Options{Seeds: 3})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Runs[0].Figures.WaitingMean
	if f.Recorded != nil || f.Error != nil {
		t.Errorf("waiting mean recorded %v error %v, want null (0.3.58 writes no completed)", f.Recorded, f.Error)
	}
	b, _ := json.Marshal(f)
	if !bytes.Contains(b, []byte(`"recorded":null`)) {
		t.Errorf("JSON %s, want recorded null", b)
	}
}

// TestLatencyHeldOut: each call's latency is predicted by a fold that did
// not see its sample: planting an absurd latency on one sample's calls
// changes the predictions of other samples, never its own fold's model.
func TestLatencyHeldOut(t *testing.T) {
	var calls []obs
	for s := range 20 {
		for k := range 3 {
			out := float64(10 * (s + k + 1))
			calls = append(calls, obs{sample: s, out: out, lat: 0.5 + out/100})
		}
	}
	f, err := fitLatency("m", calls, 5, false)
	if err != nil {
		t.Fatal(err)
	}
	// Exact data: every held-out prediction is exact.
	if f.MAPE > 1e-9 {
		t.Fatalf("MAPE %g on exact data", f.MAPE)
	}
	// Sample 10's calls 100× slower: sample 10's own prediction must not move
	// (its fold held it out), the other folds' must. (A middle sample: the
	// largest-output one, planted, tilts the others' fit to a negative
	// intercept, which solve refuses.)
	for i := range calls {
		if calls[i].sample == 10 {
			calls[i].lat *= 100
		}
	}
	folds, ok := f.fitFolds(calls, 5, FormOut, 0)
	if !ok {
		t.Fatal("no fit")
	}
	own := folds[f.fold[10]]
	if got := evalForm(FormOut, own.coef, 0, 100); math.Abs(got-1.5) > 1e-6 {
		t.Errorf("sample 10's fold predicts %g s for 100 tokens, want 1.5 (a fit without sample 10)", got)
	}
	other := folds[f.fold[1]]
	if got := evalForm(FormOut, other.coef, 0, 100); math.Abs(got-1.5) < 1e-3 {
		t.Errorf("sample 1's fold predicts %g: the planted sample did not reach the other folds", got)
	}
}

// TestHarnessLimitsFromTheLog checks the replay's event log itself (a
// brute-force count, not the policy's or the gateway's bookkeeping): over
// the 2025-09-23 process (three tasks on one pool) and an eval-set (three
// pools), no pool ever has more calls at the provider than its size, no
// task more samples running than max_samples, no more tasks running than
// max_tasks.
func TestHarnessLimitsFromTheLog(t *testing.T) {
	for glob, files := range map[string][]string{
		"2025-09-23T08-09-58": {"2025-09-23T08-09-58-04-00_popularity_DN2wbX2ZvACsBpjwptzBRo.eval",
			"2025-09-23T08-09-58-04-00_security-guide_LuxZJVwvymC3S3SyoJczxB.eval", "2025-09-23T08-09-58-04-00_theory-of-mind_bbB4eRCx2rFJLyPH42Cj9r.eval"},
		"2025-09-15T15-04-34": {"2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval",
			"2025-09-15T15-04-34-04-00_popularity_J5EskSJVsBD9iRd47twk8x.eval", "2025-09-15T15-04-34-04-00_popularity_jKN69eAYYpZFAZhRgMAztp.eval"},
	} {
		var paths []string
		for _, f := range files {
			paths = append(paths, realRuns+"/"+f)
		}
		procs, _, _, err := Load(paths)
		if err != nil {
			t.Fatal(err)
		}
		p := procs[0]
		for _, h := range []Harness{HarnessOf(p), WhatIf{MaxConnections: 3, MaxSamples: 2, MaxTasks: 2}.apply(HarnessOf(p))} {
			fits, err := fitProcess(p, h, nil, 5)
			if err != nil {
				t.Fatal(err)
			}
			log, _, err := replayLog(p, h, fits, WhatIf{}, 1)
			if err != nil {
				t.Fatal(err)
			}
			atProvider := map[int32]int{}
			taskOf := func(job int64) int { return p.Samples[job].Task }
			running := map[int]int{}
			started, finished := 0, 0
			for _, r := range log {
				switch r.Event {
				case sim.LogCallAccept:
					atProvider[r.Model]++
					if atProvider[r.Model] > h.MaxConnections {
						t.Fatalf("%s: pool %d has %d calls at the provider, over %d", glob, r.Model, atProvider[r.Model], h.MaxConnections)
					}
				case sim.LogCallAnswer:
					atProvider[r.Model]--
				case sim.LogJobStart:
					started++
					running[taskOf(int64(r.Job))]++
					if n := running[taskOf(int64(r.Job))]; n > h.MaxSamples {
						t.Fatalf("%s: task %d runs %d samples, over %d", glob, taskOf(int64(r.Job)), n, h.MaxSamples)
					}
					tasks := 0
					for _, n := range running {
						if n > 0 {
							tasks++
						}
					}
					if tasks > h.MaxTasks {
						t.Fatalf("%s: %d tasks running, over %d", glob, tasks, h.MaxTasks)
					}
				case sim.LogJobFinish:
					finished++
					running[taskOf(int64(r.Job))]--
				}
			}
			if started != len(p.Samples) || finished != len(p.Samples) {
				t.Fatalf("%s: %d started, %d finished of %d samples", glob, started, finished, len(p.Samples))
			}
		}
	}
}

// TestNoSampleNamesWhy: logs of which no sample can be used are refused
// naming the file, the line and why, not with a count alone.
func TestNoSampleNamesWhy(t *testing.T) {
	_, err := Check([]string{realRuns + "/README.md"}, Options{Seeds: 1})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("README.md:1: invalid JSON")) {
		t.Errorf("error %v, want it to name README.md:1 and invalid JSON", err)
	}
}

// TestRetriesHoldTheirConnection: under a quota that refuses tries, a call
// backing off keeps its connection (inspect_ai retries inside the pool):
// counted from the replay's event log, calls at the provider plus calls
// backing off never exceed the pool, and some calls do back off.
func TestRetriesHoldTheirConnection(t *testing.T) {
	procs, _, _, err := Load([]string{realRuns + "/2025-07-30T18-42-38+00-00_mmlu_ZYEnfbu3nstBuwzjiAGzuG.eval"})
	if err != nil {
		t.Fatal(err)
	}
	p := procs[0]
	h := HarnessOf(p)
	fits, err := fitProcess(p, h, nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	// Three samples for every connection: calls queue for the pool.
	w := WhatIf{Quota: "{rpm: 120}", MaxSamples: 3 * h.MaxConnections}
	h = w.apply(h)
	log, _, err := replayLog(p, h, fits, w, 1)
	if err != nil {
		t.Fatal(err)
	}
	held, most, refused := 0, 0, 0
	backingOff := map[int64]bool{}
	for _, r := range log {
		switch r.Event {
		case sim.LogCallAccept:
			if backingOff[r.Call] {
				backingOff[r.Call] = false
				held--
			}
			held++
		case sim.LogCallAnswer:
			held--
		case sim.LogCall429:
			refused++
			if !backingOff[r.Call] {
				backingOff[r.Call] = true
				held++
			}
		}
		most = max(most, held)
	}
	if refused == 0 {
		t.Fatal("no try refused: the quota does not bind")
	}
	if most != h.MaxConnections {
		t.Errorf("at most %d calls held a connection (at the provider or backing off), want the pool's %d", most, h.MaxConnections)
	}
}

// TestCheckKeepsNotes: what the log reader notes of the logs (a call
// retried: its interval includes the retries) reaches the report, as the
// reader gives it for the same logs.
func TestCheckKeepsNotes(t *testing.T) {
	paths := []string{realRuns + "/2025-07-30T18-42-38+00-00_mmlu_ZYEnfbu3nstBuwzjiAGzuG.eval"}
	col, err := agentlog.Collect(agentlog.Inspect, paths)
	if err != nil {
		t.Fatal(err)
	}
	if len(col.Notes) == 0 {
		t.Fatal("the reader notes nothing of the log: the test needs a log with a note")
	}
	rep, err := Check(paths, Options{Seeds: 2})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(col.Notes, rep.Notes); diff != "" {
		t.Errorf("notes (-reader +report):\n%s", diff)
	}
}
