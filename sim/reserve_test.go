package sim

import (
	"fmt"
	"testing"
)

// TestReservationLeavesProductionItsShare checks from the event log that,
// with a reservation and no borrowing, every evaluation accept left
// production its share of the TPM: the rolling minute ending at the accept
// (everyone's tokens, this accept included) plus what of the share
// production did not hold was at most the limit. Without the reservation
// the same run breaks that (the test would not tell otherwise).
func TestReservationLeavesProductionItsShare(t *testing.T) {
	const text = `
name: reserve
duration: 1h
clock: 10h
containers: {capacity: 1000, startup: 0s}
organisations:
  - {name: acme, tpm: 400000%s}
models:
  - {name: m, org: acme, streams: 500, ttft: 1s, decode_rate: 60}
production:
  - {name: product, model: m, rate_per_hour: 3000, prompt_tokens: 1000, output_tokens: 200, max_attempts: 2}
workload:
  accounts: 1
  projects_per_account: 1
  tiers: {account: [1]}
  models: {hot: [m], hot_share: 1}
  batches: {rate_per_hour: 0, size: 400, bursts: [{at: 5m, batches: 1, spread: 0s}]}
  background: {rate_per_hour: 0, size: 1}
  behaviours:
    case: {turns: 3, fanout: 1, prompt_tokens: 6000, output_tokens: 300, tool_tokens: 1000, tool_seconds: 3}
policies:
  fixed_lane: {global_cap: 100, lanes: {m: 100}}
`
	const limit, share = 400000.0, 0.3
	worst := func(reserve string) (float64, int) {
		sc := mustParse(t, fmt.Sprintf(text, reserve))
		w := runLogged(t, sc, "fixed-lane", 2)
		type acc struct {
			t      Time
			tokens float64
			prod   bool
		}
		var list []acc
		over, evals := 0.0, 0
		for _, r := range w.Log() {
			if r.Event != LogCallAccept || r.Org != 0 {
				continue
			}
			list = append(list, acc{r.T, float64(r.CountIn) + float64(r.CountOut), r.Job < 0})
			if r.Job < 0 {
				continue
			}
			evals++
			all, prod := 0.0, 0.0
			for _, a := range list {
				if a.t+Minute > r.T {
					all += a.tokens
					if a.prod {
						prod += a.tokens
					}
				}
			}
			over = max(over, all+max(0, share*limit-prod)-limit)
		}
		return over, evals
	}
	over, evals := worst(", reserve: {production: 0.3}")
	if evals < 500 {
		t.Fatalf("%d evaluation accepts: the test does not run the eval", evals)
	}
	if over > 0 {
		t.Errorf("an evaluation accept left production %g tokens short of its share", over)
	}
	if off, _ := worst(""); off <= 0 {
		t.Errorf("without a reservation every accept left production its share (worst %g): the test cannot tell", off)
	}
}
