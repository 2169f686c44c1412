package sim

import (
	"fmt"
	"testing"

	"github.com/evalsched/lab/scenario"
)

// keyScenario is one model whose evaluation calls go through key k, which
// counts as count says (preset litellm: under the limit, at the end).
func keyScenario(t *testing.T, keyRule string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.ParseScenario("key.yaml", []byte(fmt.Sprintf(`
name: key
duration: 20m
warmup: 0s
containers: {capacity: 2000, startup: 0s}
keys: [{name: k, tpm: 400000, %s}]
organisations: [{name: o}]
models:
  - {name: m, org: o, eval_key: k, streams: 2000, inflight_limit: 400, ttft: 500ms, decode_rate: 40}
workload:
  accounts: 1
  projects_per_account: 1
  models: {hot: [m], hot_share: 1}
  background: {rate_per_hour: 3000, size: 4}
  behaviours:
    one: {turns: 3, fanout: 2, prompt_tokens: 3000, output_tokens: 400, tool_seconds: 2}
policies:
  fixed_lane: {global_cap: 2000}
gateway: {retry: {base: 1s, max: 10s}}
`, keyRule)))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestKeyCountAtEndOvershoot: a key that counts a call's tokens when it
// ends lets calls in flight overshoot its cap (LiteLLM #18730: five
// concurrent calls used 6.6× a 100-TPM cap). From the event log alone: the
// tokens the key counted in any minute (answers, by their tokens) stay
// below the cap plus the tokens in flight (accepted, not answered) at some
// accept — every accept happens while the minute is under the cap, and
// what ends later was in flight then — and the overshoot is measured. The
// same scenario counting at admission never passes the cap.
func TestKeyCountAtEndOvershoot(t *testing.T) {
	const limit = 400_000
	measure := func(rule string) (maxSum, maxInflight int64, rejected int) {
		w := runLogged(t, keyScenario(t, rule), "fixed-lane", 2)
		type ended struct {
			t   Time
			amt int64
		}
		var window []ended
		var sum, inflight int64
		tokens := map[int64]int64{}
		for _, r := range w.Log() {
			if r.Job < 0 {
				continue
			}
			switch r.Event {
			case LogCallKey429:
				rejected++
			case LogCallAccept:
				tokens[r.Call] = int64(r.Tokens)
				inflight += int64(r.Tokens)
				maxInflight = max(maxInflight, inflight)
			case LogCallAnswer:
				inflight -= tokens[r.Call]
				if rule == "preset: litellm" {
					window = append(window, ended{r.T, int64(r.Tokens)})
				}
			}
			if rule != "preset: litellm" && r.Event == LogCallAccept {
				window = append(window, ended{r.T, int64(r.Tokens)})
			}
			sum = 0
			for len(window) > 0 && window[0].t+Minute <= r.T {
				window = window[1:]
			}
			for _, e := range window {
				sum += e.amt
			}
			maxSum = max(maxSum, sum)
		}
		return maxSum, maxInflight, rejected
	}
	endSum, endInflight, endRejected := measure("preset: litellm")
	admSum, _, admRejected := measure("count: admission")
	t.Logf("at end: most counted in a minute %d (%.2f× the cap), most in flight %d, %d key 429s; at admission: %d (%.2f×), %d key 429s",
		endSum, float64(endSum)/limit, endInflight, endRejected, admSum, float64(admSum)/limit, admRejected)
	if endSum >= limit+endInflight {
		t.Errorf("at end: a minute counted %d, not below the cap %d + the most in flight %d", endSum, limit, endInflight)
	}
	if endSum <= limit || endRejected == 0 {
		t.Errorf("at end: the minute peaked at %d with %d key 429s: the test does not bind the key", endSum, endRejected)
	}
	if admSum > limit || admRejected == 0 {
		t.Errorf("at admission: a minute counted %d (cap %d) with %d key 429s", admSum, limit, admRejected)
	}
}
