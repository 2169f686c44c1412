package report

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/sim/simtest"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// variantNames are run names as long as the incident's variants, then
// numbered ones.
var variantNames = []string{"no-guard", "separate-org", "virtual-key", "virtual-key-pool-binds", "worker-cap", "circuit-breaker",
	"self-throttle", "fixed-reset", "fit-admission", "reserve-production", "reserve-borrow", "batch-lane", "gateway-reservation", "token-bucket"}

// manyRuns writes outputs of n runs made from the light-load comparison
// fixture: run k is a copy of the fixture's run k mod 2 under its own name,
// with 429s on its first lane and a production stream whose 429s vary
// with k, a quota alert over most of the run, and its series and
// batch rows copied under that name with 429s in every other sample.
func manyRuns(t *testing.T, n int) *input {
	t.Helper()
	src, _ := simtest.Outputs(t)
	var s results.Summary
	if err := results.ReadJSONFile(filepath.Join(src, "summary.json"), &s); err != nil {
		t.Fatal(err)
	}
	base := s.Runs
	var names []string
	for k := range n {
		name := fmt.Sprintf("variant-%d", k)
		if k < len(variantNames) {
			name = variantNames[k]
		}
		names = append(names, name)
	}
	s.Runs = nil
	for k, name := range names {
		r := base[k%len(base)]
		r.Lanes = slices.Clone(r.Lanes)
		r.Lanes[0].Rejected429 += int64(k + 1)
		r.Total.Rejected429 += int64(k + 1)
		r.Variant = &results.RunVariant{Name: name, Policy: r.Policy}
		r.Policy = name
		var minutes []results.ProductionMinute
		for m := range 40 {
			minutes = append(minutes, results.ProductionMinute{Minute: m, Served: 3, Outage: (m+k)%9 == 0})
		}
		r.Production = []results.ProductionStats{{Name: "prod", Model: r.Lanes[0].Model, Arrived: 400, Answered: 390,
			Rejected429: int64(k * 37 % 11 * 10), Failed: 10, OutageMinutes: 5, OutageThreshold: 0.95, Minutes: minutes}}
		// a quota alert over most of the run, on every model
		w := r.Window[1] - r.Window[0]
		r.Alerts = []results.AlertEpisode{{Start: r.Window[0] + float64(k%3)*w/10, End: r.Window[1], Key: "org", Dimension: "rpd", PeakShare: 0.9}}
		s.Runs = append(s.Runs, r)
	}
	if n > 2 {
		s.Variants = []results.VariantComparison{{Baseline: names[0], Variant: names[1], Comparison: s.Comparison}}
	}
	dir := t.TempDir()
	simtest.WriteSummary(t, dir, s)
	for _, file := range []string{"series.csv", "batches.csv"} {
		data, err := os.ReadFile(filepath.Join(src, file))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		head := strings.Split(lines[0], ",")
		col429 := slices.Index(head, "rejected_429")
		out := []string{lines[0]}
		for k, name := range names {
			pol := base[k%len(base)].Policy
			for i, line := range lines[1:] {
				cells := strings.Split(line, ",")
				if cells[0] != pol {
					continue
				}
				cells[0] = name
				if col429 >= 0 && i%2 == 0 {
					cells[col429] = fmt.Sprint((i + k) % 7)
				}
				out = append(out, strings.Join(cells, ","))
			}
		}
		simtest.WriteFile(t, dir, file, strings.Join(out, "\n")+"\n")
	}
	simtest.Seal(t, dir) // the rows were rewritten: record them as they are
	o, err := results.LoadOutputs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &input{Outputs: o}
}

// layoutOf draws a figure on a layoutCanvas: its plots' data areas and
// its legends' boxes.
func layoutOf(spec figSpec) (data, legends []vg.Rectangle) {
	lc := &layoutCanvas{Canvas: nullCanvas{}}
	spec.draw(draw.Canvas{Canvas: lc, Rectangle: vg.Rectangle{Max: vg.Point{X: spec.w, Y: spec.h}}})
	return lc.data, lc.legends
}

// TestLegendsOffTheData: in every figure of reports of 1 to 17 runs (and
// tune's front), no legend box overlaps a plot's data area, and every
// legend lies inside the figure; the figures of several runs that must
// carry a legend do.
func TestLegendsOffTheData(t *testing.T) {
	mustHaveLegend := []string{"throughput", "job-time-split", "fairness-jain", "tradeoff", "rejections-429-over-time", "quota-use-over-time"}
	for _, n := range []int{1, 2, 5, 10, 14, 17} {
		t.Run(fmt.Sprint(n, " runs"), func(t *testing.T) {
			specs := figureSpecs(manyRuns(t, n))
			if n == 1 {
				front, err := frontSpec(FrontPlot{XLabel: "x", YLabel: "y", Infeasible: []XY{{1, 9}, {2, 2}}, Feasible: []XY{{3, 4}, {5, 5}, {9, 1}},
					Front: []XY{{3, 4}, {5, 5}}, Best: XY{5, 5}})
				if err != nil {
					t.Fatal(err)
				}
				specs = append(specs, front)
			}
			withLegend := map[string]bool{}
			for _, spec := range specs {
				data, legends := layoutOf(spec)
				if len(data) == 0 && !strings.HasPrefix(spec.caption, "Not drawn") {
					t.Errorf("%s: no data area recorded", spec.name)
				}
				withLegend[spec.name] = withLegend[spec.name] || len(legends) > 0
				whole := vg.Rectangle{Max: vg.Point{X: spec.w, Y: spec.h}}
				for _, l := range legends {
					if l.Min.X < whole.Min.X || l.Min.Y < whole.Min.Y || l.Max.X > whole.Max.X || l.Max.Y > whole.Max.Y {
						t.Errorf("%s: legend %v sticks out of the figure %v", spec.name, l, whole)
					}
					for _, d := range data {
						if overlaps(l, d) {
							t.Errorf("%s: legend %v over the data area %v", spec.name, l, d)
						}
					}
				}
			}
			if n >= 2 {
				for _, name := range mustHaveLegend {
					if !withLegend[name] {
						t.Errorf("figure %s has no legend (figures: %v)", name, withLegend)
					}
				}
			}
		})
	}
}
