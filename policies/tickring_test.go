package policies

import (
	"math/rand/v2"
	"testing"
)

// TestTickTileColumns: rings sharing tiles (every model's, as NewScheduler
// makes them), recorded in turn, some skipping ticks, each answer as a
// ring of its own given the same values: their counts, sums, means and
// values k ticks ago.
func TestTickTileColumns(t *testing.T) {
	const columns = 2*tileColumns + 3
	rng := rand.New(rand.NewPCG(5, 44))
	for _, k := range []int{0, 1, 6, 16} {
		tiles := tickTiles(columns)
		shared := make([]tickRing, columns)
		own := make([]tickRing, columns)
		for m := range shared {
			shared[m] = column(tiles, m, k)
			own[m] = tickRing{k: int32(k)}
		}
		for tick := range 60 {
			for m := range shared {
				if rng.IntN(4) == 0 {
					continue // a rejected or stale tick records nothing
				}
				x := rng.IntN(1000)
				shared[m].record(x)
				own[m].record(x)
			}
			for m := range shared {
				a, b := &shared[m], &own[m]
				if !sameRing(a, b) {
					t.Fatalf("k=%d tick %d column %d: n %d sum %d, want n %d sum %d (or values differ)", k, tick, m, a.n, a.sum, b.n, b.sum)
				}
				for j := 1; j <= slowMaxLookback; j++ {
					if a.n > 0 && (a.mean(j) != b.mean(j) || a.ago(j) != b.ago(j)) {
						t.Fatalf("k=%d tick %d column %d: mean(%d) %g ago %d, want %g and %d", k, tick, m, j, a.mean(j), a.ago(j), b.mean(j), b.ago(j))
					}
				}
			}
		}
	}
}
