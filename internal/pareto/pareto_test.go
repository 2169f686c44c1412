package pareto

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// skyline is the front by a second method: points sorted by X, best first,
// and swept keeping the best Y of the points strictly better on X. Within
// a group of equal X only the best Y can survive, and it survives when it
// beats every Y seen at a better X.
func skyline(xs, ys []float64, betterX, betterY Better) []int {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return betterX(xs[idx[a]], xs[idx[b]]) })
	var front []int
	haveBest, best := false, 0.0
	for g := 0; g < len(idx); {
		end := g
		for end < len(idx) && !betterX(xs[idx[g]], xs[idx[end]]) && !betterX(xs[idx[end]], xs[idx[g]]) {
			end++
		}
		gy := ys[idx[g]]
		for _, i := range idx[g:end] {
			if betterY(ys[i], gy) {
				gy = ys[i]
			}
		}
		if !haveBest || betterY(gy, best) {
			for _, i := range idx[g:end] {
				if !betterY(gy, ys[i]) {
					front = append(front, i)
				}
			}
			haveBest, best = true, gy
		}
		g = end
	}
	slices.Sort(front)
	return front
}

func TestFrontCases(t *testing.T) {
	for _, tc := range []struct {
		name   string
		xs, ys []float64
		bx, by Better
		want   []int
	}{
		{"empty", nil, nil, Higher, Lower, nil},
		{"one", []float64{3}, []float64{9}, Higher, Lower, []int{0}},
		// throughput against 429s: (10, 0) beats (5, 0) and (8, 4); (20, 50) is the fastest.
		{"throughput and 429s", []float64{10, 5, 8, 20, 15}, []float64{0, 0, 4, 50, 60}, Higher, Lower, []int{0, 3}},
		{"equal points both stay", []float64{1, 1, 0}, []float64{1, 1, 0}, Higher, Higher, []int{0, 1}},
		{"equal on one figure, worse on the other", []float64{1, 1}, []float64{2, 3}, Higher, Higher, []int{1}},
		{"a chain of trade-offs", []float64{1, 2, 3}, []float64{1, 2, 3}, Higher, Lower, []int{0, 1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Front(tc.xs, tc.ys, tc.bx, tc.by)); diff != "" {
				t.Errorf("front (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFrontMatchesSkyline: on random points (small integers, so that ties
// are common) in all four orientations, Front agrees with the sweep, and
// every point left out is dominated by a point of the front.
func TestFrontMatchesSkyline(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 1))
	orders := []Better{Higher, Lower}
	for trial := range 2000 {
		n := rng.IntN(25)
		xs, ys := make([]float64, n), make([]float64, n)
		for i := range n {
			xs[i], ys[i] = float64(rng.IntN(8)), float64(rng.IntN(8))
		}
		bx, by := orders[trial%2], orders[trial/2%2]
		got := Front(xs, ys, bx, by)
		if diff := cmp.Diff(skyline(xs, ys, bx, by), got); diff != "" {
			t.Fatalf("trial %d, points %v %v: front (-skyline +Front):\n%s", trial, xs, ys, diff)
		}
		for i := range n {
			if slices.Contains(got, i) {
				continue
			}
			beaten := false
			for _, j := range got {
				beaten = beaten || (!bx(xs[i], xs[j]) && !by(ys[i], ys[j]) && (bx(xs[j], xs[i]) || by(ys[j], ys[i])))
			}
			if !beaten {
				t.Fatalf("trial %d: point %d (%v, %v) is off the front but no point of it dominates it", trial, i, xs[i], ys[i])
			}
		}
	}
}
