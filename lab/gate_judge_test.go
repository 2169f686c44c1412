package lab

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJudgePaired: a paired tolerance fails a row when any seed's value
// moves past its own baseline value by more than the fraction, whatever
// the mean does; the spread alone lets the same change pass. Expected
// verdicts are worked out by hand from the values.
func TestJudgePaired(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	base := GateBaseline{Scenarios: []BaselineScenario{{Name: "s", Seeds: seeds, Figures: []BaselineFigure{
		// mean 1360.8, values spread widely: se ≈ 158.8
		{Lane: AllLanes, Metric: MetricThroughput, Values: []float64{1233.6, 1172.4, 1676.4}, Mean: 1360.8, SE: 158.7858935800029},
	}}}}
	paired := 0.02
	spread := Tolerance{Relative: 0.05, KSE: 3, set: []string{"relative", "k_se"}}
	both := Tolerance{Relative: 0.05, KSE: 3, Paired: &paired, set: []string{"relative", "k_se", "paired"}}
	alone := Tolerance{Paired: &paired, set: []string{"paired"}}
	for _, tc := range []struct {
		name     string
		tol      Tolerance
		now      []float64
		verdict  string
		seedRegr []uint64
	}{
		// Seed 3 falls 34.6%: the mean falls 21%, within 3 SE (limit 884.4).
		{"spread misses a per-seed fall", spread, []float64{1200, 1100, 1096}, VerdictOK, nil},
		{"paired beside the spread catches it", both, []float64{1200, 1100, 1096}, VerdictRegression, []uint64{1, 2, 3}},
		{"paired alone, one seed down 3%", alone, []float64{1233.6, 1172.4 * 0.97, 1676.4}, VerdictRegression, []uint64{2}},
		{"paired alone, every seed down 1.9%", alone, []float64{1233.6 * 0.981, 1172.4 * 0.981, 1676.4 * 0.981}, VerdictOK, nil},
		{"paired alone, up is fine on a floor", alone, []float64{2000, 2000, 2000}, VerdictOK, nil},
		{"exact rerun", both, []float64{1233.6, 1172.4, 1676.4}, VerdictOK, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tol := tc.tol
			g := &Gate{Spec: GateFile{Scenarios: []GateScenario{{Name: "s", Seeds: seeds}},
				Checks: []GateCheck{{Metric: MetricThroughput, Floor: &tol}}}}
			now := map[string][]MetricAgg{"s": Aggregate([][]MetricValue{
				{{MetricKey{AllLanes, MetricThroughput}, tc.now[0]}},
				{{MetricKey{AllLanes, MetricThroughput}, tc.now[1]}},
				{{MetricKey{AllLanes, MetricThroughput}, tc.now[2]}},
			})}
			v := g.Judge(base, now)
			r := v.Rows[0]
			if diff := cmp.Diff(struct {
				V string
				S []uint64
			}{tc.verdict, tc.seedRegr}, struct {
				V string
				S []uint64
			}{r.Verdict, r.SeedRegressions}); diff != "" {
				t.Errorf("verdict and seeds (-want +got):\n%s", diff)
			}
			if r.WorstSeedChange != nil {
				want := math.Inf(1)
				for k, b := range []float64{1233.6, 1172.4, 1676.4} {
					want = math.Min(want, (tc.now[k]-b)/b)
				}
				if math.Abs(*r.WorstSeedChange-want) > 1e-12 {
					t.Errorf("worst seed change %v, want %v", *r.WorstSeedChange, want)
				}
			}
		})
	}
}
