package report

import (
	"fmt"
	"strings"

	"github.com/evalsched/lab/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var splitParts = []struct {
	name string
	get  func(results.Split) float64
}{
	{"queued", func(s results.Split) float64 { return s.Queued.Mean }},
	{"container start", func(s results.Split) float64 { return s.Start.Mean }},
	{"gateway wait", func(s results.Split) float64 { return s.Gateway.Mean }},
	{"LLM", func(s results.Split) float64 { return s.LLM.Mean }},
	{"tool", func(s results.Split) float64 { return s.Tool.Mean }},
}

// splitFigure: mean job time per part, stacked, per policy; a second panel
// without the queue so the parts after admission stay readable.
func splitFigure(o *input) (figSpec, error) {
	const name = "job-time-split"
	s := o.Summary
	if len(s.Runs) == 0 {
		return placeholder(name, "Job time split", "summary.json has no run"), nil
	}
	any := false
	for _, r := range s.Runs {
		if r.Total.Completed > 0 || r.Total.JobTime.Total.Mean > 0 {
			any = true
		}
	}
	if !any {
		return placeholder(name, "Job time split", "no job completed in the measurement window of any run"), nil
	}
	left, legend, err := splitPanel(s, "all parts", 0)
	if err != nil {
		return figSpec{}, err
	}
	right, _, err := splitPanel(s, "after admission (without queued)", 1)
	if err != nil {
		return figSpec{}, err
	}
	title := "Where a job's time goes: mean seconds per completed job (all lanes)"
	h := vg.Length(max(2.6, 0.5*float64(len(s.Runs))+2.0)) * vg.Inch
	return figSpec{name: name, title: title, caption: splitCaption(s), w: 11 * vg.Inch, h: h,
		draw: figureWithLegend(title, [][]*plot.Plot{{left, right}}, legend)}, nil
}

// splitPanel stacks the parts from splitParts[from] on, one bar per run
// (the first at the top), each labelled with its total, and returns the
// legend of the parts it shows.
func splitPanel(s results.Summary, title string, from int) (*plot.Plot, []legendEntry, error) {
	n := len(s.Runs)
	names := make([]string, n)
	for i := range s.Runs {
		names[n-1-i] = roleName(s, i)
	}
	p := newPlot(title, "mean seconds per completed job", "")
	newGrid(p, true, false)
	p.NominalY(names...)
	var legend []legendEntry
	var prev *plotter.BarChart
	totals := make([]float64, n)
	for k := from; k < len(splitParts); k++ {
		vals := make(plotter.Values, n)
		for i, r := range s.Runs {
			vals[n-1-i] = max(0, fin(splitParts[k].get(r.Total.JobTime)))
			totals[n-1-i] += vals[n-1-i]
		}
		b, err := plotter.NewBarChart(vals, vg.Points(26))
		if err != nil {
			return nil, nil, err
		}
		b.Horizontal = true
		b.Color = splitColors[k]
		b.LineStyle.Width = 0
		if prev != nil {
			b.StackOn(prev)
		}
		prev = b
		p.Add(b)
		legend = append(legend, legendEntry{splitParts[k].name, b})
	}
	if err := addTotals(p, totals); err != nil {
		return nil, nil, err
	}
	p.X.Min = 0
	p.X.Max = max(p.X.Max, 1) * 1.15
	return p, legend, nil
}

// addTotals prints each bar's total right of it.
func addTotals(p *plot.Plot, totals []float64) error {
	xys := make(plotter.XYs, len(totals))
	labels := make([]string, len(totals))
	for i := range totals {
		xys[i] = plotter.XY{X: totals[i], Y: float64(i)}
		labels[i] = fmt.Sprintf("%.0f s", totals[i])
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		st := textStyle(10)
		st.YAlign = draw.YCenter
		l.TextStyle[i] = st
	}
	l.Offset = vg.Point{X: vg.Points(4)}
	p.Add(l)
	return nil
}

func splitCaption(s results.Summary) string {
	var parts []string
	for _, r := range s.Runs {
		t := r.Total.JobTime
		parts = append(parts, fmt.Sprintf("%s: %.0f s, of which queued %.0f s (%.0f%%), gateway wait %.0f s, LLM %.0f s, tool %.0f s",
			r.Policy, t.Total.Mean, t.Queued.Mean, 100*results.Ratio(t.Queued.Mean, t.Total.Mean), t.Gateway.Mean, t.LLM.Mean, t.Tool.Mean))
	}
	return "Mean time per completed job (all lanes, measurement window) split into queued (waiting for admission, " +
		"no container), container start, gateway wait (holding a container while every call of the turn waits at the gateway), " +
		"LLM and tool. The right panel leaves out the queue so the container-holding parts are readable. " +
		"Look for a shorter queue under the new policy without the gateway wait (the container waste) growing. " +
		strings.Join(parts, "; ") + "."
}
