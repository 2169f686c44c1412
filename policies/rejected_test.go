package policies

import "testing"

// TestRejectedHoldsBelowShareAndLowersAbove drives rejected() for a few
// ticks: any 429 holds the limit; it is lowered only once 429s persisted
// lowerAfter ticks and the model answers for more than one (QuotaState
// reports at most one for a model below its share of a shared quota).
func TestRejectedHoldsBelowShareAndLowersAbove(t *testing.T) {
	c := controller{step: 5, lowerAfter: 2}
	cases := []struct {
		name      string
		rejected  []int // per tick
		running   int
		wantLimit int
		wantAct   Action
		decided   bool
	}{
		{"no 429: the depth rule decides", []int{0, 0, 0}, 40, 50, ActionHold, false},
		{"one 429 a tick (below share): held, never lowered", []int{1, 1, 1, 1}, 40, 50, ActionRejected, true},
		{"many 429s (at or above share): lowered after 2 ticks", []int{9, 9}, 40, 45, ActionRejectedLower, true},
		{"many 429s for 3 ticks: lowered twice", []int{9, 9, 9}, 40, 40, ActionRejectedLower, true},
		{"persisting, then one: held at the lowered limit", []int{9, 9, 1}, 40, 45, ActionRejected, true},
		{"already below running: not lowered", []int{9, 9, 9}, 60, 50, ActionRejected, true},
		{"a tick without 429 resets the count", []int{9, 0, 9}, 40, 50, ActionRejected, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ls := limitState{limit: 50, minL: 1, maxL: 1000, action: ActionHold}
			var decided bool
			for _, r := range tc.rejected {
				decided = c.rejected(&ls, r, tc.running)
			}
			if ls.limit != tc.wantLimit || ls.action != tc.wantAct || decided != tc.decided {
				t.Errorf("limit %d, action %v, decided %v; want %d, %v, %v", ls.limit, ls.action, decided, tc.wantLimit, tc.wantAct, tc.decided)
			}
		})
	}
}
