package sim

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/scenario/scenariotest"
)

// tally is what the event log says happened to jobs and calls.
type tally struct {
	arrived, finished, failed, inSystem       int
	created, answered, callsFailed, callsLive int
	outage, rejected429                       int
}

// endOnce marks id ended, failing the test if it had already ended.
func endOnce[K comparable](t *testing.T, ended map[K]bool, id K, what string) {
	t.Helper()
	if ended[id] {
		t.Fatalf("%s %v ended twice", what, id)
	}
	ended[id] = true
}

// checkConserved checks from the event log and the final tables that every
// job that arrived finished, failed or is still in the system, and every
// call created was answered, failed or is still in the system, each once.
func checkConserved(t *testing.T, w *World) tally {
	t.Helper()
	var c tally
	jobEnded, callEnded := map[policies.JobID]bool{}, map[int64]bool{}
	for _, r := range w.Log() {
		switch r.Event {
		case LogJobArrive:
			c.arrived++
		case LogJobFinish, LogJobFail:
			endOnce(t, jobEnded, r.Job, "job")
			if r.Event == LogJobFail {
				c.failed++
			} else {
				c.finished++
			}
		case LogCallCreate:
			c.created++
		case LogCallAnswer, LogCallFail:
			endOnce(t, callEnded, r.Call, "call")
			if r.Event == LogCallAnswer {
				c.answered++
			} else {
				c.callsFailed++
			}
		case LogCallOutage:
			c.outage++
		case LogCall429:
			c.rejected429++
		}
	}
	census := w.Census()
	c.inSystem = len(census.JobsWaiting) + len(census.JobsStarting) + len(census.JobsRunning)
	c.callsLive = len(census.CallsQueued) + len(census.CallsBackoff) + len(census.CallsProvider)
	if c.finished+c.failed+c.inSystem != c.arrived {
		t.Errorf("jobs: %d finished + %d failed + %d in the system != %d arrived", c.finished, c.failed, c.inSystem, c.arrived)
	}
	if c.answered+c.callsFailed+c.callsLive != c.created {
		t.Errorf("calls: %d answered + %d failed + %d in the system != %d created", c.answered, c.callsFailed, c.callsLive, c.created)
	}
	counts := w.Counts()
	if int(counts.JobsCompleted) != c.finished || int(counts.JobsFailed) != c.failed {
		t.Errorf("counters say %d completed, %d failed; the log %d, %d", counts.JobsCompleted, counts.JobsFailed, c.finished, c.failed)
	}
	return c
}

// faultScenario is the test scenario with only model a (quota o) used.
func faultScenario(t *testing.T, edit func(string) string) *scenario.Scenario {
	t.Helper()
	text := strings.Replace(scenariotest.Valid, "    hot_share: 0.5\n", "    hot_share: 1\n", 1)
	sc, err := scenario.ParseScenario("fault.yaml", []byte(edit(text)))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestFaults: each fault runs to the end under both policies, conserves
// jobs and calls, and shows in what the run reports.
func TestFaults(t *testing.T) {
	same := func(s string) string { return s }
	for _, tc := range []struct {
		name  string
		edit  func(string) string
		check func(t *testing.T, c tally, w *World)
	}{
		{"provider outage forever", func(s string) string {
			return s + "events:\n  - {at: 0s, model: a, capacity: 0}\n"
		}, func(t *testing.T, c tally, w *World) {
			if c.outage == 0 || c.answered != 0 || c.finished != 0 {
				t.Errorf("outage: %d outage rejections (want > 0), %d answered, %d finished (want 0)", c.outage, c.answered, c.finished)
			}
		}},
		{"quota smaller than one call", func(s string) string {
			return strings.Replace(s, "{name: o, rpm: 100}", "{name: o, rpm: 100, tpm: 10}", 1)
		}, func(t *testing.T, c tally, w *World) {
			if c.failed == 0 || c.finished != 0 || c.answered != 0 || c.callsFailed == 0 {
				t.Errorf("quota: %d jobs failed, %d calls failed (want > 0); %d finished, %d answered (want 0)", c.failed, c.callsFailed, c.finished, c.answered)
			}
			if got := w.Measured().JobsFailed; got != int64(c.failed) {
				t.Errorf("RunData.JobsFailed = %d, log %d", got, c.failed)
			}
		}},
		// The model has no container failures: a start-up delay beyond the
		// run is the equivalent (no container is ever ready).
		{"containers never start", func(s string) string {
			return strings.Replace(s, "startup: 5s", "startup: 2h", 1)
		}, func(t *testing.T, c tally, w *World) {
			if c.created != 0 || c.finished != 0 || c.inSystem == 0 {
				t.Errorf("no container: %d calls, %d finished (want 0), %d jobs in the system (want > 0)", c.created, c.finished, c.inSystem)
			}
		}},
		{"metrics stale for the whole run", func(s string) string {
			return strings.Replace(s, "containers:", "gateway: {depth_delay: 2h}\ncontainers:", 1)
		}, func(t *testing.T, c tally, w *World) {
			if c.finished == 0 {
				t.Errorf("stale metrics: no job finished")
			}
		}},
		{"zero capacity on every model", func(s string) string {
			return s + "events:\n  - {at: 0s, model: a, capacity: 0}\n  - {at: 0s, model: b, capacity: 0}\n"
		}, func(t *testing.T, c tally, w *World) {
			if c.answered != 0 || c.outage == 0 {
				t.Errorf("zero capacity: %d answered (want 0), %d outage rejections", c.answered, c.outage)
			}
		}},
		{"baseline", same, func(t *testing.T, c tally, w *World) {
			if c.finished == 0 || c.failed != 0 {
				t.Errorf("baseline: %d finished, %d failed", c.finished, c.failed)
			}
		}},
	} {
		for _, policy := range scenario.PolicyNames() {
			t.Run(tc.name+"/"+policy, func(t *testing.T) {
				w := runLogged(t, faultScenario(t, tc.edit), policy, 1)
				if w.Now() < FromDuration(time.Hour) {
					t.Errorf("run ended at %v, before the scenario's end", w.Now())
				}
				c := checkConserved(t, w)
				tc.check(t, c, w)
				t.Logf("%+v", c)
			})
		}
	}
}

// TestEventGuard: a run past its event budget stops with a *BudgetError
// saying where it got to, rather than running on.
func TestEventGuard(t *testing.T) {
	sc := faultScenario(t, func(s string) string { return s })
	sc.RunBudget = scenario.Budget{MaxEvents: 500}
	w := newWorld(t, sc, "scheduler", Options{Seed: 1})
	err := w.Run()
	var be *scenario.BudgetError
	if !errors.As(err, &be) {
		t.Fatalf("got %v, want a *BudgetError", err)
	}
	if be.Size != 500 || w.EventsProcessed() != 500 || be.At <= 0 {
		t.Errorf("stopped after %g events (engine %d) at %v; want 500 at a positive time", be.Size, w.EventsProcessed(), be.At)
	}
}

// TestMemoryGuard: a run whose process holds more live heap than its memory
// budget stops with a *BudgetError naming --max-memory; the same run with
// room finishes.
func TestMemoryGuard(t *testing.T) {
	for _, tc := range []struct {
		name   string
		budget uint64
		stops  bool
	}{{"no room", 1, true}, {"room", 1 << 40, false}} {
		t.Run(tc.name, func(t *testing.T) {
			sc := faultScenario(t, func(s string) string { return s })
			sc.RunBudget = scenario.Budget{MaxMemory: tc.budget}
			w := newWorld(t, sc, "scheduler", Options{Seed: 1})
			runtime.GC() // the live-heap reading is refreshed by a collection
			err := w.Run()
			var be *scenario.BudgetError
			switch {
			case tc.stops && (!errors.As(err, &be) || be.Flag != "--max-memory" || !strings.Contains(err.Error(), "memory")):
				t.Errorf("got %v, want a memory *BudgetError", err)
			case !tc.stops && err != nil:
				t.Errorf("got %v, want the run to finish", err)
			}
		})
	}
}
