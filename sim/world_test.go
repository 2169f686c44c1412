package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/workloads"
	"github.com/google/go-cmp/cmp"
)

// smallScenario is the light-load scenario (the first default) cut down to
// run in well under a second.
func smallScenario(t *testing.T, edit func(*scenario.Scenario)) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.LoadScenario("embedded:light-load")
	if err != nil {
		t.Fatal(err)
	}
	sc.Duration = 40 * time.Minute
	sc.Warmup = 5 * time.Minute
	sc.Workload.Batches.Bursts = []workloads.Burst{{At: 10 * time.Minute, Batches: 2, Spread: time.Minute}}
	sc.Workload.Batches.Size.Max = 3000
	sc.Events = []scenario.CapacityEvent{{At: 20 * time.Minute, Model: "gpt-5.5", Capacity: ptr(0.0)}, {At: 25 * time.Minute, Model: "gpt-5.5", Capacity: ptr(1.0)}}
	if edit != nil {
		edit(sc)
	}
	return sc
}

func ptr[T any](v T) *T { return &v }

func runLogged(t *testing.T, sc *scenario.Scenario, policy string, seed uint64) *World {
	t.Helper()
	return runWorld(t, sc, policy, Options{Seed: seed, Log: true}, nil)
}

// TestConservation checks from the event log and the final tables that no job
// or call is lost or counted twice: every job that arrived finished or is
// still waiting, starting or running; every call was answered, failed, or is
// still queued, backing off or at a provider. The generator is replayed on its
// own to count the arrivals independently.
func TestConservation(t *testing.T) {
	for _, policy := range scenario.PolicyNames() {
		t.Run(policy, func(t *testing.T) {
			sc := smallScenario(t, func(sc *scenario.Scenario) {
				sc.Organisations[1].RPM = 3000 // make 429s happen
				sc.Gateway.Retry.MaxAttempts = 6
			})
			w := runLogged(t, sc, policy, 3)
			gen, err := workloads.NewGenerator(sc.Workload, sc.Catalogue(), sc.Duration, 3)
			if err != nil {
				t.Fatal(err)
			}
			generated := 0
			for _, ok := gen.Next(); ok; _, ok = gen.Next() {
				generated++
			}
			arrived := map[policies.JobID]bool{}
			finished := map[policies.JobID]bool{}
			created := map[int64]bool{}
			ended := map[int64]bool{}
			var grading, answered, failed int
			for _, r := range w.Log() {
				switch r.Event {
				case LogJobArrive:
					if arrived[r.Job] {
						t.Fatalf("job %d arrived twice", r.Job)
					}
					arrived[r.Job] = true
					if r.Grading {
						grading++
					}
				case LogJobFinish:
					if !arrived[r.Job] || finished[r.Job] {
						t.Fatalf("job %d finished without arriving, or twice", r.Job)
					}
					finished[r.Job] = true
				case LogCallCreate:
					created[r.Call] = true
				case LogCallAnswer, LogCallFail:
					if !created[r.Call] || ended[r.Call] {
						t.Fatalf("call %d ended without being created, or twice", r.Call)
					}
					ended[r.Call] = true
					if r.Event == LogCallAnswer {
						answered++
					} else {
						failed++
					}
				}
			}
			if got := len(arrived) - grading; got != generated {
				t.Errorf("non-grading arrivals = %d, generator replayed alone yields %d", got, generated)
			}
			census := w.Census()
			live := map[policies.JobID]bool{}
			for _, ids := range [][]policies.JobID{census.JobsWaiting, census.JobsStarting, census.JobsRunning} {
				for _, id := range ids {
					if finished[id] || live[id] || !arrived[id] {
						t.Fatalf("job %d in the final table: finished %v, listed twice %v, arrived %v", id, finished[id], live[id], arrived[id])
					}
					live[id] = true
				}
			}
			if len(finished)+len(live) != len(arrived) {
				t.Errorf("jobs: %d finished + %d in the system != %d arrived", len(finished), len(live), len(arrived))
			}
			inSystem := 0
			for _, serials := range [][]int64{census.CallsQueued, census.CallsBackoff, census.CallsProvider} {
				for _, s := range serials {
					if ended[s] || !created[s] {
						t.Fatalf("call %d in the final table: ended %v, created %v", s, ended[s], created[s])
					}
					inSystem++
				}
			}
			if answered+failed+inSystem != len(created) {
				t.Errorf("calls: %d answered + %d failed + %d in the system != %d created", answered, failed, inSystem, len(created))
			}
			if failed == 0 || answered == 0 || len(census.JobsWaiting)+len(census.JobsRunning) == 0 {
				t.Errorf("scenario too easy to test conservation: %d answered, %d failed, %d waiting, %d running",
					answered, failed, len(census.JobsWaiting), len(census.JobsRunning))
			}
			t.Logf("%d jobs arrived (%d grading), %d finished; %d calls created, %d answered, %d failed", len(arrived), grading, len(finished), len(created), answered, failed)
		})
	}
}

func summaryJSON(t *testing.T, sc *scenario.Scenario, seed uint64) []byte {
	t.Helper()
	var runs []results.Run
	for _, p := range scenario.PolicyNames() {
		w, err := Execute(sc, RunSpec{Policy: p, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, results.Summarize(w.Measured()))
	}
	data, err := json.Marshal(results.Summary{Scenario: sc.Name, Seed: seed, Runs: runs})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestDeterminism(t *testing.T) {
	a := summaryJSON(t, smallScenario(t, nil), 11)
	b := summaryJSON(t, smallScenario(t, nil), 11)
	if !bytes.Equal(a, b) {
		t.Fatal("same scenario and seed gave different summaries")
	}
	c := summaryJSON(t, smallScenario(t, nil), 12)
	if bytes.Equal(a, c) {
		t.Fatal("a different seed gave the same summary")
	}
}

// TestTimeFreePolicy: a policy that reads no instant (fixed-lane's
// TimeFree) runs the same, event for event and in every measurement,
// given the zero time as given the wall clock's instants.
func TestTimeFreePolicy(t *testing.T) {
	sc := smallScenario(t, nil)
	free := runLogged(t, sc, "fixed-lane", 5)
	if !free.timeFree {
		t.Fatal("fixed-lane is not given the zero time")
	}
	timed := runWorld(t, sc, "fixed-lane", Options{Seed: 5, Log: true}, func(w *World) { w.timeFree = false })
	if diff := cmp.Diff(timed.Log(), free.Log()); diff != "" {
		t.Errorf("event log (-timed +time-free):\n%s", diff)
	}
	a, err := json.Marshal(results.Summarize(timed.Measured()))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(results.Summarize(free.Measured()))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("summaries differ:\n%s\n%s", a, b)
	}
}

// TestArrivalsIndependentOfPolicy: the job stream (ids, models, times) is the
// same whichever policy runs.
func TestArrivalsIndependentOfPolicy(t *testing.T) {
	sc := smallScenario(t, nil)
	var streams [][]string
	for _, p := range scenario.PolicyNames() {
		w := runLogged(t, sc, p, 5)
		var s []string
		for _, r := range w.Log() {
			// Grading jobs arrive when their job finishes, which depends on
			// the policy; first-hand arrivals must not.
			if r.Event == LogJobArrive && !r.Grading {
				s = append(s, fmt.Sprintf("%d@%d", r.Model, r.T))
			}
		}
		streams = append(streams, s)
	}
	if fmt.Sprint(streams[0]) != fmt.Sprint(streams[1]) {
		t.Fatal("arrivals differ between policies")
	}
}

// TestRateLimits drives a quota-bound provider and checks from the log that
// no rolling minute holds more accepted requests or tokens than the quota,
// that 429s happen, and that every rejected call is retried after the
// configured backoff.
func TestRateLimits(t *testing.T) {
	cases := []struct {
		name   string
		rpm    float64
		tpm    float64
		honour bool
	}{
		{"rpm", 600, 0, false},
		{"tpm", 0, 2_000_000, false},
		{"both-honour-retry-after", 900, 3_000_000, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sc := smallScenario(t, func(sc *scenario.Scenario) {
				for i := range sc.Organisations {
					sc.Organisations[i].RPM, sc.Organisations[i].TPM = tc.rpm, tc.tpm
				}
				sc.Events = nil
				sc.Gateway.Retry = scenario.RetryConfig{Base: 2 * time.Second, Max: 20 * time.Second, Multiplier: 2, HonourRetryAfter: &tc.honour}
			})
			w := runLogged(t, sc, "scheduler", 9)
			type acc struct {
				t      Time
				tokens float64
			}
			accepted := map[int32][]acc{}
			lastTry := map[int64]LogRecord{}
			var rejected, retried int
			for _, r := range w.Log() {
				switch r.Event {
				case LogCallAccept, LogCall429:
					if prev, ok := lastTry[r.Call]; ok && prev.Event == LogCall429 {
						retried++
						gap := r.T - prev.T
						backoff := Time(2*Second) << (prev.Try - 1)
						backoff = min(backoff, 20*Second)
						if gap < backoff {
							t.Fatalf("call %d retried %v after a 429 on try %d, backoff is %v", r.Call, gap, prev.Try, backoff)
						}
						if r.Try != prev.Try+1 {
							t.Fatalf("call %d: try %d follows try %d", r.Call, r.Try, prev.Try)
						}
					}
					lastTry[r.Call] = r
					if r.Event == LogCallAccept && r.Org >= 0 {
						accepted[r.Org] = append(accepted[r.Org], acc{r.T, float64(r.Tokens)})
					} else if r.Event == LogCall429 {
						rejected++
					}
				}
			}
			if rejected == 0 || retried == 0 {
				t.Fatalf("no 429s (%d) or no retries (%d): the test does not exercise the quota", rejected, retried)
			}
			// Brute-force sliding window over each organisation's accepts: for
			// every accept, the minute ending at it.
			for org, list := range accepted {
				lo, reqs, toks := 0, 0.0, 0.0
				for hi := range list {
					reqs++
					toks += list[hi].tokens
					for list[lo].t <= list[hi].t-Minute {
						reqs--
						toks -= list[lo].tokens
						lo++
					}
					if tc.rpm > 0 && reqs > tc.rpm {
						t.Fatalf("org %d: %v requests in the minute ending %v, rpm %v", org, reqs, list[hi].t, tc.rpm)
					}
					if tc.tpm > 0 && toks > tc.tpm+1e-6 {
						t.Fatalf("org %d: %v tokens in the minute ending %v, tpm %v", org, toks, list[hi].t, tc.tpm)
					}
				}
			}
			t.Logf("%d 429s, %d retries", rejected, retried)
		})
	}
}

// TestRateLimitWindowExact: a provider with rpm 60 and instant service admits
// exactly 60 of 100 simultaneous single-call jobs in the first minute, and the
// rest when the window frees (retry-after honoured, no jitter).
func TestRateLimitWindowExact(t *testing.T) {
	sc, err := scenario.ParseScenario("rl.yaml", []byte(`
name: rl
duration: 10m
warmup: 0s
containers: {capacity: 1000, startup: 0s}
organisations: [{name: o, rpm: 60}]
models:
  - {name: m, org: o, streams: 1000, ttft: 1ms, decode_rate: 1000}
workload:
  accounts: 1
  projects_per_account: 1
  models: {hot: [m], hot_share: 1}
  batches: {size: 100, bursts: [{at: 0s, batches: 1}]}
  behaviours: {one: {turns: 1, fanout: 1, output_tokens: 0, tool_seconds: 0}}
policies: {fixed_lane: {global_cap: 1000}}
gateway: {retry: {base: 1s, max: 1s, jitter: 0, honour_retry_after: true}}
`))
	if err != nil {
		t.Fatal(err)
	}
	w := runLogged(t, sc, "fixed-lane", 1)
	var accepts []Time
	for _, r := range w.Log() {
		if r.Event == LogCallAccept {
			accepts = append(accepts, r.T)
		}
	}
	sort.Slice(accepts, func(i, j int) bool { return accepts[i] < accepts[j] })
	if len(accepts) != 100 {
		t.Fatalf("accepted %d calls, want 100", len(accepts))
	}
	if accepts[59] != 0 || accepts[60] != Minute {
		t.Errorf("60th accept at %v and 61st at %v, want 0s and 1m0s (window frees exactly a minute later)", accepts[59], accepts[60])
	}
}
