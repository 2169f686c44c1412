package sim

import "testing"

// TestAnswerableShareRule: a model of a shared organisation answers for all
// its 429s at or above the mean running jobs of the organisation's models
// with tries, for at most one below it; alone, it answers for all.
func TestAnswerableShareRule(t *testing.T) {
	cases := []struct {
		name   string
		n, own int
		peers  []int
		want   int
		why    string
	}{
		{"no 429", 0, 10, []int{10, 50}, 0, "no 429, nothing to answer for"},
		{"one 429", 1, 50, []int{10, 50}, 1, "a single 429 is reported as it is"},
		{"above the mean", 30, 50, []int{10, 50}, 30, "50 > mean 30"},
		{"below the mean", 30, 10, []int{10, 50}, 1, "10 < mean 30"},
		{"at the mean", 30, 20, []int{20, 20, 20}, 30, "equal shares: all answer"},
		{"just below the mean", 30, 19, []int{19, 20, 21}, 1, "19 < mean 20"},
		{"alone on its organisation", 30, 5, []int{5}, 30, "no other model to make room for"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := answerable(tc.n, tc.own, tc.peers); got != tc.want {
				t.Errorf("answerable(%d, %d, %v) = %d, want %d (%s)", tc.n, tc.own, tc.peers, got, tc.want, tc.why)
			}
		})
	}
}
