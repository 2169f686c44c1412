package reversal

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		xs   []int
		want int
	}{
		{nil, 0},
		{[]int{5}, 0},
		{[]int{1, 2, 3, 4}, 0},
		{[]int{1, 2, 1}, 1},
		{[]int{1, 2, 2, 2, 1}, 1}, // holds do not break the run
		{[]int{1, 2, 1, 2, 1}, 3},
		{[]int{4, 3, 3, 5, 5, 5, 6, 2}, 2},
		{[]int{3, 3, 3}, 0},
	} {
		if got := Count(len(tc.xs), func(i int) int { return tc.xs[i] }); got != tc.want {
			t.Errorf("Count(%v) = %d, want %d", tc.xs, got, tc.want)
		}
	}
}
