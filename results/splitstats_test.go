package results

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// bruteSplit is the summary as it was computed before splitStats: every
// job copied into one slice, each part sorted, and the jobs stably sorted
// by total time for the p90 wait share.
func bruteSplit(lanes [][]JobTimes) (Split, float64, float64) {
	var all []JobTimes
	for _, ts := range lanes {
		all = append(all, ts...)
	}
	n := len(all)
	parts := make([][]float64, 6)
	var wait, total float64
	type jobTotal struct{ total, wait float64 }
	byTotal := make([]jobTotal, n)
	for _, t := range all {
		parts[0] = append(parts[0], t.Total())
		parts[1] = append(parts[1], float64(t.Queued))
		parts[2] = append(parts[2], float64(t.Start))
		parts[3] = append(parts[3], float64(t.Gateway))
		parts[4] = append(parts[4], float64(t.LLM))
		parts[5] = append(parts[5], float64(t.Tool))
		wait += t.Waiting()
		total += t.Total()
	}
	for i, t := range all {
		byTotal[i] = jobTotal{t.Total(), t.Waiting()}
	}
	var p90Share float64
	if n > 0 {
		sort.SliceStable(byTotal, func(a, b int) bool { return byTotal[a].total < byTotal[b].total })
		p90 := byTotal[int(math.Ceil(0.9*float64(n)))-1]
		p90Share = Ratio(p90.wait, p90.total)
	}
	brute := func(xs []float64) Stats {
		if len(xs) == 0 {
			return Stats{}
		}
		sort.Float64s(xs)
		var sum float64
		for _, x := range xs {
			sum += x
		}
		q := func(p float64) float64 { return xs[int(math.Ceil(p*float64(len(xs))))-1] }
		return Stats{Mean: sum / float64(len(xs)), P50: q(0.5), P90: q(0.9), P99: q(0.99)}
	}
	return Split{Total: brute(parts[0]), Queued: brute(parts[1]), Start: brute(parts[2]), Gateway: brute(parts[3]),
		LLM: brute(parts[4]), Tool: brute(parts[5])}, Ratio(wait, total), p90Share
}

// TestSplitStatsAgainstSort: the selection-based split (percentiles at
// their ranks, the p90 job found by a stable-rank scan, lanes not copied)
// equals a brute-force sort of all jobs, ties included.
func TestSplitStatsAgainstSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	// jobs draws n jobs; with coarse set, values come from a few levels so
	// totals tie often (the stable order then decides the p90 job).
	jobs := func(n int, coarse bool) []JobTimes {
		v := func() float32 {
			if coarse {
				return float32(rng.IntN(3))
			}
			return float32(rng.ExpFloat64() * 100)
		}
		out := make([]JobTimes, n)
		for i := range out {
			out[i] = JobTimes{Queued: v(), Start: v(), Gateway: v(), LLM: v(), Tool: v()}
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		lanes [][]JobTimes
	}{
		{"no jobs", [][]JobTimes{nil, {}}},
		{"one job", [][]JobTimes{jobs(1, false)}},
		{"one lane", [][]JobTimes{jobs(1000, false)}},
		{"lanes with empty ones", [][]JobTimes{jobs(10, false), nil, jobs(333, false), jobs(1, false)}},
		{"ties", [][]JobTimes{jobs(200, true), jobs(57, true), jobs(9, true)}},
		{"all equal", [][]JobTimes{make([]JobTimes, 40), make([]JobTimes, 3)}},
		{"many lanes", func() [][]JobTimes {
			var ls [][]JobTimes
			for range 50 {
				ls = append(ls, jobs(rng.IntN(40), rng.IntN(2) == 0))
			}
			return ls
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			type result struct {
				Split          Split
				Wait, P90Share float64
			}
			var want, got result
			want.Split, want.Wait, want.P90Share = bruteSplit(tc.lanes)
			var p90 JobTimes
			got.Split, got.Wait, p90 = splitStats(tc.lanes)
			got.P90Share = Ratio(p90.Waiting(), p90.Total())
			// The mean is summed in sorted order in both; compare it within
			// rounding of the sum's order, the rest exactly.
			if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool {
				return a == b || math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
			})); diff != "" {
				t.Errorf("split (-want +got):\n%s", diff)
			}
		})
	}
}
