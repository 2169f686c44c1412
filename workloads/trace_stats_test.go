package workloads

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestSampleExactBelowReservoir: below the reservoir size, mean, max and
// nearest-rank quantiles equal those of the full sorted data.
func TestSampleExactBelowReservoir(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 2, 7, 1000} {
		s := NewSample(1)
		var all []float64
		for i := 0; i < n; i++ {
			v := math.Floor(rng.ExpFloat64() * 100)
			all = append(all, v)
			s.Add(v)
		}
		slices.Sort(all)
		sum := 0.0
		for _, v := range all {
			sum += v
		}
		for _, p := range []float64{0.01, 0.5, 0.9, 1} {
			rank := int(math.Ceil(p*float64(n))) - 1 // nearest rank, 0-based
			if got, want := s.Quantile(p), all[max(rank, 0)]; got != want {
				t.Errorf("n=%d: Quantile(%g) = %g, want %g", n, p, got, want)
			}
		}
		if s.Max != all[n-1] || math.Abs(s.Mean()-sum/float64(n)) > 1e-9*sum || s.Sampled() {
			t.Errorf("n=%d: max %g mean %g sampled %v, want %g %g false", n, s.Max, s.Mean(), s.Sampled(), all[n-1], sum/float64(n))
		}
	}
}

func TestBuckets(t *testing.T) {
	b := Buckets{Width: time.Minute}
	for _, at := range []time.Duration{0, 59 * time.Second, time.Minute, 5*time.Minute + time.Second} {
		b.Add(at)
	}
	if want := []int{2, 1, 0, 0, 0, 1}; !slices.Equal(b.N, want) {
		t.Errorf("got %v, want %v", b.N, want)
	}
}

func TestEffectiveTier(t *testing.T) {
	for _, tc := range []struct {
		acct, proj, batch, want int8
	}{{0, 0, 0, 0}, {3, 0, 0, 3}, {3, 2, 0, 2}, {3, 2, 1, 1}, {3, 0, 1, 1}} {
		j := Job{AccountTier: tc.acct, ProjectTier: tc.proj, BatchTier: tc.batch}
		if got := EffectiveTier(j); got != tc.want {
			t.Errorf("EffectiveTier(%d,%d,%d) = %d, want %d", tc.acct, tc.proj, tc.batch, got, tc.want)
		}
	}
}
