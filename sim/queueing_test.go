package sim

import (
	"fmt"
	"math"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
)

// mmcScenario is single-call jobs with Poisson arrivals at rate lambda (per
// second) on a model with c streams and exponential service of mean 1 s:
// the gateway queue in front of the provider is an M/M/c queue.
func mmcScenario(t testing.TB, c int, lambda float64, hours float64) *scenario.Scenario {
	t.Helper()
	return mmcScenarioWith(t, c, lambda, hours, "", "", "")
}

// mmcScenarioWith is mmcScenario with extra top-level keys (organisations,
// say), extra keys of the model and of the behaviour.
func mmcScenarioWith(t testing.TB, c int, lambda float64, hours float64, top, model, behaviour string) *scenario.Scenario {
	t.Helper()
	yaml := fmt.Sprintf(`
name: mmc
duration: %gh
warmup: %gh
containers: {capacity: 1000000, startup: 0s}
%smodels:
  - {name: m, streams: %d, inflight_limit: %d, ttft: 1s, decode_rate: 1000, jitter: {dist: exponential}%s}
workload:
  accounts: 1
  projects_per_account: 1
  models: {hot: [m], hot_share: 1}
  background: {rate_per_hour: %g, size: 1}
  behaviours:
    one: {turns: 1, fanout: 1, output_tokens: 0, tool_seconds: 0%s}
policies:
  fixed_lane: {global_cap: 1000000}
`, hours, hours/20, top, c, c, model, lambda*3600, behaviour)
	sc, err := scenario.ParseScenario("mmc.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// erlangC is the probability an arrival waits in M/M/c with offered load a = λ/μ.
func erlangC(c int, a float64) float64 {
	sum, term := 0.0, 1.0 // term = a^k/k!
	for k := 0; k < c; k++ {
		sum += term
		term *= a / float64(k+1)
	}
	tail := term * float64(c) / (float64(c) - a)
	return tail / (sum + tail)
}

func TestQueueingTheory(t *testing.T) {
	if testing.Short() {
		t.Log("running the queueing-theory check at full length even in -short: it is the model's ground truth")
	}
	cases := []struct {
		c   int
		rho float64
		n   float64 // expected arrivals in the run
	}{
		{1, 0.5, 2e5},
		{1, 0.8, 6e5},
		{1, 0.9, 1.5e6},
		{4, 0.8, 4e5},
		{4, 0.9, 8e5},
		{16, 0.9, 8e5},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("M/M/%d/rho=%.1f", tc.c, tc.rho), func(t *testing.T) {
			lambda := tc.rho * float64(tc.c) // μ = 1/s
			hours := tc.n / lambda / 3600
			sc := mmcScenario(t, tc.c, lambda, hours)
			w, err := Execute(sc, RunSpec{Policy: "fixed-lane", Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			run := results.Summarize(w.Measured())
			if len(run.Lanes) != 1 {
				t.Fatalf("want one lane, got %d", len(run.Lanes))
			}
			lane := run.Lanes[0]
			a := lambda // offered load in erlangs with μ = 1
			wantWait := erlangC(tc.c, a) / (float64(tc.c) - lambda)
			within(t, "mean wait in queue (s)", lane.CallQueueWait, wantWait, 0.05)
			within(t, "utilisation", lane.ProviderUtilisation, tc.rho, 0.05)
			within(t, "arrival rate (1/s)", lane.CallQueueRate, lambda, 0.05)
			// Little's law on the run's own outputs: time-average queue length
			// against (rate into service) × (mean wait), both measured.
			within(t, "Little's law L vs λW", lane.GatewayDepth, lane.CallQueueRate*lane.CallQueueWait, 0.02)
			// And for the whole system (queue + service): L = λ (Wq + 1/μ).
			within(t, "Little's law busy streams vs λ/μ", lane.ProviderUtilisation*float64(tc.c), lane.CallQueueRate*1.0, 0.02)
		})
	}
}

func within(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if math.Abs(got-want) > rel*math.Abs(want) {
		t.Errorf("%s = %.4g, want %.4g ± %.0f%% (off by %.1f%%)", what, got, want, 100*rel, 100*(got-want)/want)
	} else {
		t.Logf("%s = %.4g, want %.4g (off by %+.2f%%)", what, got, want, 100*(got-want)/want)
	}
}
