package sim

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
)

// batchScenario is the small scenario with its grading jobs (judge-1, on
// openai) sent to openai's batch API: a pool of limReq requests and limTok
// input tokens, a window of 30 minutes and completions of median 10
// minutes (so some expire), and judge-1 priced.
func batchScenario(t *testing.T, limReq, limTok float64) *scenario.Scenario {
	return smallScenario(t, func(sc *scenario.Scenario) {
		g := sc.Workload.Behaviours["grader"]
		g.Batch = true
		sc.Workload.Behaviours["grader"] = g
		sc.Organisations[0].Batch = &scenario.BatchConfig{Scope: scenario.BatchScopeOrganisation, EnqueuedRequests: limReq, EnqueuedTokens: limTok,
			PriceFactor: 0.5, Window: 30 * time.Minute, Median: 10 * time.Minute, Sigma: ptr(1.0)}
		cfgs := sc.ModelConfigs()
		for i := range cfgs {
			if cfgs[i].Name == "judge-1" {
				cfgs[i].Prices = scenario.Prices{Input: 2.5, Output: 10}
			}
		}
	})
}

// TestBatchLaneFromTheLog: the batch lane checked from the event log, not
// its counters. Conservation: every request sent to the batch lane was
// refused, or enqueued once and then completed within its window or
// expired exactly at its end, or is still held or enqueued at the run's
// end (and the summary's counts say the same). The pool's limits: the
// requests and input tokens enqueued, replayed from the log, never exceed
// them, and they bind (requests wait for room). The cost: the completed
// requests' tokens in the window at judge-1's list prices times the price
// factor, summed here from the scenario's numbers, is the bill. And none
// of judge-1's calls went through the gateway.
func TestBatchLaneFromTheLog(t *testing.T) {
	const limReq, limTok = 120, 900_000
	sc := batchScenario(t, limReq, limTok)
	w := runLogged(t, sc, "scheduler", 3)
	window := FromDuration(30 * time.Minute)
	judge := int32(-1)
	for i, n := range sc.Catalogue() {
		if n == "judge-1" {
			judge = int32(i)
		}
	}
	type req struct {
		submit, enqueue Time
		enqueued, ended bool
	}
	reqs := map[int64]*req{}
	var enqReq, enqTok int64
	var held, enqueuedAtEnd, completed, expired, refused, waited int64
	dollars := 0.0
	for _, r := range w.Log() {
		id := int64(r.Job)
		switch r.Event {
		case LogCallCreate:
			if r.Model == judge {
				t.Fatalf("%v: a call of judge-1 went to the gateway", r.T.Duration())
			}
		case LogBatchSubmit:
			if reqs[id] != nil {
				t.Fatalf("job %d sent to the batch lane twice", id)
			}
			reqs[id] = &req{submit: r.T}
		case LogBatchEnqueue:
			q := reqs[id]
			if q == nil || q.enqueued || q.ended {
				t.Fatalf("job %d enqueued without a submit, or twice", id)
			}
			q.enqueued, q.enqueue = true, r.T
			if r.T > q.submit {
				waited++
			}
			enqReq++
			enqTok += int64(r.CountIn)
			if enqReq > limReq || enqTok > limTok {
				t.Fatalf("%v: %d requests and %d tokens enqueued, limits %d and %d", r.T.Duration(), enqReq, enqTok, limReq, limTok)
			}
		case LogBatchDone, LogBatchExpire:
			q := reqs[id]
			if q == nil || !q.enqueued || q.ended {
				t.Fatalf("job %d ended without being enqueued, or twice", id)
			}
			q.ended = true
			enqReq--
			enqTok -= int64(r.CountIn)
			d := r.T - q.enqueue
			if r.Event == LogBatchExpire {
				expired++
				if d != window {
					t.Fatalf("job %d expired %v after it was enqueued, want the window (%v)", id, d.Duration(), window.Duration())
				}
				continue
			}
			completed++
			if d <= 0 || d >= window {
				t.Fatalf("job %d completed %v after it was enqueued: not within the window", id, d.Duration())
			}
			if r.T >= FromDuration(sc.Warmup) {
				dollars += (float64(r.CountIn)*2.5 + float64(r.CountOut)*10) / 1e6 * 0.5
			}
		case LogBatchRefuse:
			q := reqs[id]
			if q == nil || q.enqueued || q.ended {
				t.Fatalf("job %d refused after being enqueued", id)
			}
			q.ended = true
			refused++
		}
	}
	for _, q := range reqs {
		switch {
		case !q.enqueued && !q.ended:
			held++
		case q.enqueued && !q.ended:
			enqueuedAtEnd++
		}
	}
	lanes := w.Measured().BatchLanes
	if len(lanes) != 1 {
		t.Fatalf("%d batch lanes, want openai's", len(lanes))
	}
	got := lanes[0]
	type counts struct {
		Org                                                    string
		Submitted, Completed, Expired, Refused, Held, Enqueued int64
	}
	want := counts{"openai", int64(len(reqs)), completed, expired, refused, held, enqueuedAtEnd}
	if diff := cmp.Diff(want, counts{got.Org, got.Submitted, got.Completed, got.Expired, got.Refused, got.Held, got.Enqueued}); diff != "" {
		t.Errorf("summary counts (-log +summary):\n%s", diff)
	}
	if want.Submitted != want.Completed+want.Expired+want.Refused+want.Held+want.Enqueued {
		t.Errorf("requests lost: %+v", want)
	}
	if completed < 100 || expired == 0 || waited == 0 {
		t.Fatalf("%d completed, %d expired, %d waited for room: the test does not exercise the window or the limits", completed, expired, waited)
	}
	if math.Abs(got.Dollars-dollars) > 1e-9*dollars || dollars == 0 {
		t.Errorf("batch dollars %v, from the log at the list prices %v", got.Dollars, dollars)
	}
	t.Logf("%d submitted: %d completed, %d expired, %d held and %d enqueued at the end; %d waited for room; $%.4f", want.Submitted, completed, expired, held, enqueuedAtEnd, waited, dollars)
}

// TestBatchLaneDeterministic: the same scenario and seed give the same
// summary, byte for byte, batch lane included.
func TestBatchLaneDeterministic(t *testing.T) {
	sc := batchScenario(t, 120, 900_000)
	var out [2][]byte
	for i := range out {
		w := runWorld(t, sc, "scheduler", Options{Seed: 9}, nil)
		b, err := json.Marshal(results.Summarize(w.Measured()))
		if err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Fatal("two runs of one seed differ")
	}
	if !bytes.Contains(out[0], []byte(`"batch_lanes"`)) {
		t.Fatal("no batch lane in the summary")
	}
}
