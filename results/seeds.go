package results

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// MultiplierStat is one lane's throughput multiplier over several seeds:
// the mean and a 95% confidence interval (Student's t on the per-seed
// multipliers; seeds where the baseline completed nothing are left out).
type MultiplierStat struct {
	Model string  `json:"model"`
	Seeds int     `json:"seeds"`
	Mean  float64 `json:"mean"`
	Low   float64 `json:"ci95_low"`
	High  float64 `json:"ci95_high"`
}

// MultiplierCI summarises per-seed comparisons, lane by lane, in the order
// of the first seed's rows. With one usable seed the interval is the point.
func MultiplierCI(perSeed [][]LaneComparison) []MultiplierStat {
	if len(perSeed) == 0 {
		return nil
	}
	values := map[string][]float64{}
	var order []string
	seen := map[string]bool{}
	for _, rows := range perSeed {
		for _, r := range rows {
			if !seen[r.Model] {
				seen[r.Model] = true
				order = append(order, r.Model)
			}
			if r.Multiplier != nil {
				values[r.Model] = append(values[r.Model], *r.Multiplier)
			}
		}
	}
	var out []MultiplierStat
	for _, m := range order {
		xs := values[m]
		if len(xs) == 0 {
			continue
		}
		s := MultiplierStat{Model: m, Seeds: len(xs), Mean: stat.Mean(xs, nil)}
		s.Low, s.High = s.Mean, s.Mean
		if n := len(xs); n > 1 {
			t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
			half := t * stat.StdDev(xs, nil) / math.Sqrt(float64(n))
			s.Low, s.High = s.Mean-half, s.Mean+half
		}
		out = append(out, s)
	}
	return out
}

// WriteMultiplierTable prints the multiplier over seeds for the top lanes.
func WriteMultiplierTable(w io.Writer, stats []MultiplierStat, top int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "model\tseeds\tmean\t95%% CI\t\n")
	for i, s := range stats {
		if top > 0 && i == top {
			fmt.Fprintf(tw, "(%d more lanes)\t\t\t\t\n", len(stats)-top)
			break
		}
		fmt.Fprintf(tw, "%s\t%d\t%.2fx\t[%.2f, %.2f]\t\n", s.Model, s.Seeds, s.Mean, s.Low, s.High)
	}
	return tw.Flush()
}
