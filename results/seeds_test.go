package results

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func ptr(v float64) *float64 { return &v }

// lc is a lane comparison with completed counts and throughputs.
func lc(model string, oldDone, newDone int64) LaneComparison {
	return LaneComparison{Model: model, OldCompleted: oldDone, NewCompleted: newDone, OldPerHour: float64(oldDone), NewPerHour: float64(newDone)}
}

// withTokens sets a comparison's tokens per hour and their ratio as
// Compare does (none when the old lane served none).
func withTokens(c LaneComparison, old, new float64) LaneComparison {
	c.OldTokensPerHour, c.NewTokensPerHour = old, new
	if old > 0 {
		c.TokenMultiplier = ptr(new / old)
	}
	return c
}

func TestMultiplierCI(t *testing.T) {
	// a: ratios 2, 4, 8 → logs ln2·{1,2,3}: mean 2 ln2, sd ln2; t(0.975; 2)
	// = 4.302652729911275 from tables.
	half := 4.302652729911275 * math.Ln2 / math.Sqrt(3)
	tests := []struct {
		name    string
		perSeed [][]LaneComparison
		want    []MultiplierStat
	}{{
		name: "geometric mean and log-t interval",
		perSeed: [][]LaneComparison{
			{lc("a", 10, 20)}, {lc("a", 10, 40)}, {lc("a", 10, 80)},
		},
		want: []MultiplierStat{{Model: "a", RatioStat: RatioStat{Seeds: 3, Mean: 4, Low: ptr(math.Exp(2*math.Ln2 - half)), High: ptr(math.Exp(2*math.Ln2 + half))}}},
	}, {
		name:    "one seed: a mean, no interval",
		perSeed: [][]LaneComparison{{lc("c", 10, 50)}},
		want:    []MultiplierStat{{Model: "c", RatioStat: RatioStat{Seeds: 1, Mean: 5}}},
	}, {
		name: "near-zero baseline seeds are counted, not ratios",
		perSeed: [][]LaneComparison{
			{lc("z", 1, 766), lc("y", 0, 3), lc("never", 0, 9)}, {lc("z", 4, 30), lc("y", 2, 3), lc("never", 0, 9)},
		},
		want: []MultiplierStat{{Model: "z", NearZeroSeeds: 2}, {Model: "y", NearZeroSeeds: 2}},
	}, {
		// Token ratios 1/2, 1, 2: logs ln2·{-1,0,1}, mean 0, sd ln2, the
		// same half-width; jobs/h 2, 2, 2 (no interval width).
		name: "token multiplier: its own geometric mean and interval; seeds without tokens left out",
		perSeed: [][]LaneComparison{
			{withTokens(lc("k", 10, 20), 1000, 500)}, {withTokens(lc("k", 10, 20), 1000, 1000)},
			{withTokens(lc("k", 10, 20), 1000, 2000)}, {withTokens(lc("k", 10, 20), 0, 2000)},
		},
		want: []MultiplierStat{{Model: "k", RatioStat: RatioStat{Seeds: 4, Mean: 2, Low: ptr(2), High: ptr(2)},
			Tokens: &RatioStat{Seeds: 3, Mean: 1, Low: ptr(math.Exp(-half)), High: ptr(math.Exp(half))}}},
	}, {
		name: "new completed nothing: half a job, still positive",
		perSeed: [][]LaneComparison{
			{lc("n", 10, 0)},
		},
		want: []MultiplierStat{{Model: "n", RatioStat: RatioStat{Seeds: 1, Mean: 0.05}}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, MultiplierCI(tt.perSeed), cmpopts.EquateApprox(1e-9, 0)); diff != "" {
				t.Errorf("MultiplierCI (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLogRatioCoverage draws paired throughputs with a known true
// multiplier (old lognormal, new = old × multiplier × lognormal noise),
// many times, and counts how often the 95% interval holds the true
// multiplier: it must be 95% within the binomial tolerance (±3 standard
// errors of 4000 draws ≈ ±1.0%), with every bound positive, also for
// noise and multipliers that made Student's t on raw ratios go negative.
func TestLogRatioCoverage(t *testing.T) {
	const reps = 4000
	tests := []struct {
		name       string
		seeds      int
		multiplier float64
		sigma      float64
		oldMedian  float64
	}{
		{"3 seeds, 10x, wide noise", 3, 10, 1.2, 50},
		{"5 seeds, 2.5x", 5, 2.5, 0.3, 200},
		{"10 seeds, 1x", 10, 1, 0.1, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tt.seeds)))
			hits := 0
			for range reps {
				ratios := make([]float64, tt.seeds)
				for i := range ratios {
					old := tt.oldMedian * math.Exp(0.5*rng.NormFloat64())
					newv := old * tt.multiplier * math.Exp(tt.sigma*rng.NormFloat64())
					ratios[i] = newv / old
				}
				_, lo, hi, ok := LogRatioCI(ratios, 0.95)
				if !ok || !(lo > 0) || lo > hi {
					t.Fatalf("interval [%v, %v] ok=%v: want positive bounds", lo, hi, ok)
				}
				if lo <= tt.multiplier && tt.multiplier <= hi {
					hits++
				}
			}
			cov := float64(hits) / reps
			se := math.Sqrt(0.95 * 0.05 / reps)
			if math.Abs(cov-0.95) > 3*se {
				t.Errorf("coverage %.4f, want 0.95 ± %.4f", cov, 3*se)
			}
		})
	}
}
