package results

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// hotLanes are the lanes holding the most containers under the new policy
// (mean running jobs): where a running-job limit matters.
func hotLanes(o *Outputs) []string {
	_, new := runsOf(o.Summary)
	var lanes []Lane
	if new != nil {
		lanes = append(lanes, new.Lanes...)
	}
	sort.SliceStable(lanes, func(i, j int) bool {
		if lanes[i].MeanRunning != lanes[j].MeanRunning {
			return lanes[i].MeanRunning > lanes[j].MeanRunning
		}
		return lanes[i].ThroughputPerHour > lanes[j].ThroughputPerHour
	})
	var out []string
	for _, l := range lanes {
		if len(out) == max(FigureHotLanes, 0) {
			break
		}
		if l.MeanRunning > 0 || l.Completed > 0 || l.Started > 0 {
			out = append(out, l.Model)
		}
	}
	if len(out) == 0 && len(o.Series) > 0 {
		// No lane in the summary: fall back to the series.
		area := map[string]float64{}
		for _, r := range o.Series {
			area[r.Model] += float64(r.Running)
		}
		for m := range area {
			out = append(out, m)
		}
		sort.Slice(out, func(i, j int) bool {
			if area[out[i]] != area[out[j]] {
				return area[out[i]] > area[out[j]]
			}
			return out[i] < out[j]
		})
		out = out[:min(len(out), max(FigureHotLanes, 0))]
	}
	return out
}

// disturbances are those named in the runs' convergence tables (marked only
// where a limit had to settle), without the start of the run.
func disturbances(s Summary) []Disturbance {
	seen := map[Disturbance]bool{}
	var out []Disturbance
	for _, r := range s.Runs {
		for _, c := range r.Convergence {
			d := c.Disturbance
			if seen[d] || d.isStart() {
				continue
			}
			seen[d] = true
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}

type seriesKey struct{ policy, model string }

func indexSeries(o *Outputs) (map[seriesKey][]SeriesRecord, map[string][]float64) {
	by := map[seriesKey][]SeriesRecord{}
	times := map[string]map[float64]bool{}
	for _, r := range o.Series {
		k := seriesKey{r.Policy, r.Model}
		by[k] = append(by[k], r)
		if times[r.Policy] == nil {
			times[r.Policy] = map[float64]bool{}
		}
		times[r.Policy][r.T] = true
	}
	grid := map[string][]float64{}
	for p, ts := range times {
		g := make([]float64, 0, len(ts))
		for t := range ts {
			if !math.IsNaN(t) && !math.IsInf(t, 0) {
				g = append(g, t)
			}
		}
		sort.Float64s(g)
		grid[p] = g
	}
	for k := range by {
		rs := by[k]
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].T < rs[j].T })
	}
	return by, grid
}

// timelineFigures: for each hot lane, running jobs, the running-job limit
// and the gateway depth over time under each policy, disturbances marked.
func timelineFigures(o *Outputs) ([]figSpec, error) {
	hot := hotLanes(o)
	if len(hot) == 0 {
		return []figSpec{placeholder("timeline", "Running jobs, limit and gateway depth over time",
			"no lane had any job and series.csv has no row")}, nil
	}
	tl := timelines{o: o, roles: newPolicyRoles(o.Summary), pols: policies(o), ds: disturbances(o.Summary), end: runEnd(o)}
	tl.by, tl.grid = indexSeries(o)
	tl.scale, tl.unit = timeUnit(tl.end)
	var figs []figSpec
	for _, m := range hot {
		f, err := tl.figure(m)
		if err != nil {
			return nil, err
		}
		figs = append(figs, f)
	}
	return figs, nil
}

// timelines is what the timeline figures of one output directory share.
type timelines struct {
	o     *Outputs
	roles policyRoles
	pols  []string
	by    map[seriesKey][]SeriesRecord
	grid  map[string][]float64 // sample times per policy
	ds    []Disturbance
	end   float64 // seconds
	scale float64 // seconds per unit
	unit  string
}

func (tl *timelines) figure(model string) (figSpec, error) {
	name := "timeline-" + safeName(model)
	title := model + ": running jobs, running-job limit and gateway depth"
	top := newPlot("", "", "jobs holding a container")
	bottom := newPlot("", "time ("+tl.unit+")", "gateway queue (calls)")
	newGrid(top, true, true)
	newGrid(bottom, true, true)
	legend, rows, err := tl.addLines(top, bottom, model)
	if err != nil {
		return figSpec{}, err
	}
	if rows == 0 {
		return placeholder(name, title, "series.csv has no row for "+model), nil
	}
	events := tl.addMarks(top, bottom, model)
	for _, p := range []*plot.Plot{top, bottom} {
		timeAxis(&p.X, tl.unit, tl.end)
		p.Y.Min = 0
		p.Y.Max = max(p.Y.Max, 1)
	}
	top.X.Label.Text = ""
	// headroom for the disturbance labels
	top.Y.Max *= 1.12
	return figSpec{name: name, title: title, caption: timelineCaption(tl.o.Summary, model, events), w: 10 * vg.Inch, h: 6.2 * vg.Inch,
		draw: figureWithLegend(title, [][]*plot.Plot{{top}, {bottom}}, legend)}, nil
}

// addLines draws each policy's running jobs and limit on top and gateway
// depth on bottom, and returns the legend and how many series rows the
// model has.
func (tl *timelines) addLines(top, bottom *plot.Plot, model string) ([]legendEntry, int, error) {
	var legend []legendEntry
	rows := 0
	for k, pol := range tl.pols {
		ci := tl.roles.colorIndex(pol, k)
		c := policyColor(ci)
		width := vg.Points(1.4)
		if ci == 0 && len(tl.pols) > 1 {
			width = vg.Points(1.1)
		}
		rs := tl.by[seriesKey{pol, model}]
		rows += len(rs)
		running, limit, depth := tl.samples(pol, rs)
		for _, l := range []struct {
			p      *plot.Plot
			xys    plotter.XYs
			c      color.Color
			dashed bool
		}{{top, running, c, false}, {top, limit, darker(c), true}, {bottom, depth, c, false}} {
			if err := addLine(l.p, l.xys, l.c, width, l.dashed); err != nil {
				return nil, 0, err
			}
		}
		legend = append(legend, legendEntry{tl.roles.label(pol), lineThumb(c, vg.Points(3), false)})
	}
	legend = append(legend, legendEntry{"running jobs / gateway depth", lineThumb(grey, vg.Points(1.4), false)},
		legendEntry{"running-job limit (fixed-lane: its cap)", lineThumb(grey, vg.Points(1.4), true)})
	return legend, rows, nil
}

// samples are a model's running jobs, limit and depth at each sample time
// of policy pol. Rows exist only while a model has anything going on: a
// missing sample is zero running and zero depth (and no limit).
func (tl *timelines) samples(pol string, rs []SeriesRecord) (running, limit, depth plotter.XYs) {
	at := map[float64]SeriesRecord{}
	for _, r := range rs {
		at[r.T] = r
	}
	for _, t := range tl.grid[pol] {
		r, ok := at[t]
		x := t / tl.scale
		running = append(running, plotter.XY{X: x, Y: float64(r.Running)})
		depth = append(depth, plotter.XY{X: x, Y: float64(r.Depth)})
		if ok && r.Limit >= 0 {
			limit = append(limit, plotter.XY{X: x, Y: float64(r.Limit)})
		}
	}
	return running, limit, depth
}

// addMarks marks the end of the warm-up and the disturbances that concern
// model (labelled on top only) and describes the disturbances.
func (tl *timelines) addMarks(top, bottom *plot.Plot, model string) (events []string) {
	s := tl.o.Summary
	marks, bare := &vMarks{}, &vMarks{}
	if len(s.Runs) > 0 && s.Runs[0].Window[0] > 0 {
		marks.add(s.Runs[0].Window[0]/tl.scale, "warm-up end", grey, true)
		bare.add(s.Runs[0].Window[0]/tl.scale, "", grey, true)
	}
	for _, d := range tl.ds {
		if d.Model != "" && d.Model != model {
			continue
		}
		c := grey
		if d.Model != "" {
			c = eventRed
		}
		marks.add(d.Seconds()/tl.scale, d.Kind, c, false)
		bare.add(d.Seconds()/tl.scale, "", c, false)
		events = append(events, fmt.Sprintf("%s at %s", d.Kind, formatClock(d.Seconds())))
	}
	top.Add(marks)
	bottom.Add(bare)
	return events
}

func timelineCaption(s Summary, model string, events []string) string {
	caption := fmt.Sprintf("%s, sampled every series interval: top, jobs holding a container (solid) and the policy's running-job limit "+
		"(dashed; for fixed-lane its fixed cap); bottom, calls queued at the gateway. ", model)
	if len(events) > 0 {
		caption += "Vertical lines mark " + strings.Join(events, ", ") + " (red: a capacity event on this model, grey: bursts of batches; " +
			"taken from the convergence table). "
	}
	caption += "Look for the limit rising until the gateway queue holds about the target depth, running jobs following the limit " +
		"while jobs wait, the limit falling after a slowdown and recovering after it, and no sustained oscillation. "
	return caption + laneFacts(s, model)
}

// laneFacts states a lane's throughput and the scheduler's settled limits.
func laneFacts(s Summary, model string) string {
	var parts []string
	for i, r := range s.Runs {
		for _, l := range r.Lanes {
			if l.Model == model {
				parts = append(parts, fmt.Sprintf("%s: %.0f jobs/h, %.0f running on average", roleName(s, i), l.ThroughputPerHour, l.MeanRunning))
			}
		}
	}
	out := ""
	if len(parts) > 0 {
		out = strings.Join(parts, "; ") + ". "
	}
	for _, r := range s.Runs {
		var conv []string
		for _, c := range r.Convergence {
			if c.Model != model {
				continue
			}
			band := "never settled in band"
			if c.TimeToBand >= 0 {
				band = fmt.Sprintf("in band after %.0f s", c.TimeToBand)
			}
			conv = append(conv, fmt.Sprintf("%s → %.0f (%s)", c.Disturbance.Kind, c.Settled, band))
		}
		if len(conv) > 0 {
			out += fmt.Sprintf("Settled limit under %s after each disturbance: %s. ", r.Policy, strings.Join(conv, ", "))
		}
	}
	return strings.TrimSpace(out)
}
