package lab

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSummaryCellsOneSeed: with one seed summary.csv gives the mean and
// leaves se and the 95% bounds empty (it wrote se 0 and ci95_low =
// ci95_high = mean, an interval of zero width no data backs); with two it
// gives them. Expectations by hand: values 10 and 14 have sd 2√2, se 2,
// t(0.975, 1) = 12.706, so the bounds are 12 ∓ 25.41 (clipped at 0).
func TestSummaryCellsOneSeed(t *testing.T) {
	key := func(m string) MetricKey { return MetricKey{Lane: AllLanes, Metric: m} }
	for _, tc := range []struct {
		name   string
		metric string
		values []float64
		want   []string
	}{
		{"one seed", MetricThroughput, []float64{10}, []string{"1", "10", "", "", ""}},
		{"one seed, multiplier", MetricMultiplier, []float64{1.05}, []string{"1", "1.05", "", "", ""}},
		{"two seeds", MetricThroughput, []float64{10, 14}, []string{"2", "12", "2", "0", "37.41"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var perSeed [][]MetricValue
			for _, v := range tc.values {
				perSeed = append(perSeed, []MetricValue{{MetricKey: key(tc.metric), Value: v}})
			}
			aggs := Aggregate(perSeed)
			got := summaryCells(aggs[0])
			if len(tc.values) > 1 { // the bounds to 4 digits
				got[4] = FormatFloat(float64(int(aggs[0].High*100+0.5)) / 100)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("cells (-want +got):\n%s", diff)
			}
		})
	}
}
