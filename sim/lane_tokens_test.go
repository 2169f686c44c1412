package sim

import (
	"testing"

	"github.com/evalsched/lab/scenario"
	"github.com/google/go-cmp/cmp"
)

// TestLaneTokensFromLog: each lane's tokens (the work behind
// tokens_per_hour) are the input + output tokens of its evaluation calls
// answered in the measurement window, summed here from the event log, not
// from the recorder's counter. A binding TPM makes calls retry, so a try
// counted twice, or a rejected one counted, would show.
func TestLaneTokensFromLog(t *testing.T) {
	for _, policy := range scenario.PolicyNames() {
		t.Run(policy, func(t *testing.T) {
			sc := smallScenario(t, func(sc *scenario.Scenario) { sc.Organisations[1].TPM = 2e6 })
			w := runLogged(t, sc, policy, 5)
			from := FromDuration(sc.Warmup)
			want := make([]float64, len(sc.Catalogue()))
			rejected := 0
			for _, r := range w.Log() {
				switch {
				case r.Job < 0 || r.T < from:
				case r.Event == LogCallAnswer:
					want[r.Model] += float64(r.Tokens)
				case r.Event == LogCall429:
					rejected++
				}
			}
			if rejected == 0 {
				t.Fatal("no 429 in the window: the quota does not bind, the test proves little")
			}
			got := make([]float64, len(want))
			for i, l := range w.Lanes() {
				got[i] = l.Tokens
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("lane tokens (-log +recorder):\n%s", diff)
			}
		})
	}
}
