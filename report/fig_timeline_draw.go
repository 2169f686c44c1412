package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"github.com/evalsched/lab/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// figure is model's timeline: running jobs and the limit on top, then a
// panel for the gateway queue and one for 429s, each only when it has
// anything (the caption says which is missing and why).
func (tl *timelines) figure(model string) (figSpec, error) {
	name := "timeline-" + safeName(model)
	title := model + ": running jobs, running-job limit and the calls' wait"
	top := newPlot("", "", "jobs holding a container")
	newGrid(top, true, true)
	// the event marks go under the lines: their labels' boxes hide none
	under := []*layer{{}}
	top.Add(under[0])
	as := alertSpans(tl.o.Summary, model)
	strip, stripH := alertStrip(as, tl.scale)
	lines, err := tl.addLines(top, model)
	if err != nil {
		return figSpec{}, err
	}
	if lines.rows == 0 {
		return placeholder(name, title, "series.csv has no row for "+model), nil
	}
	plots := []*plot.Plot{top}
	if lines.maxDepth > 0 {
		p, l := tl.countPanel("gateway queue (calls)", lines.depth)
		plots, under = append(plots, p), append(under, l)
	}
	if lines.total429 > 0 {
		p, l := tl.countPanel("429s per sample", lines.r429)
		plots, under = append(plots, p), append(under, l)
	}
	marked := plots
	if strip != nil {
		marked = append(slices.Clone(plots), strip)
		under = append(under, &layer{})
		strip.Add(under[len(under)-1])
	}
	events := tl.addMarks(under, model)
	grid := make([][]*plot.Plot, len(plots))
	for i, p := range marked {
		timeAxis(&p.X, tl.unit, tl.end)
		p.X.Label.Text = ""
		if p == strip {
			continue
		}
		p.Y.Min = 0
		p.Y.Max = max(p.Y.Max, 1)
		grid[i] = []*plot.Plot{p}
	}
	marked[len(marked)-1].X.Label.Text = "time (" + tl.unit + ")"
	top.Y.Max *= 1.12 // headroom for the disturbance labels
	legend := append(lines.legend, legendEntry{"running jobs, queue, 429s", lineThumb(color.Black, vg.Points(1.4), false)},
		legendEntry{"running-job limit", lineThumb(color.Black, vg.Points(1.4), true)},
		legendEntry{"events", markThumb()})
	h := 3.6*vg.Inch + vg.Length(len(plots)-1)*2.4*vg.Inch
	spec := figSpec{name: name, title: title, caption: tl.caption(model, lines, events) + alertCaption(as), w: 10 * vg.Inch, h: h,
		draw: figureWithLegend(title, grid, legend)}
	if strip != nil {
		spec.h += stripH
		spec.draw = figureWithStrip(title, plots, strip, stripH, legend)
	}
	return spec, nil
}

// timelineLines is what addLines drew and measured, per policy in order.
type timelineLines struct {
	legend             []legendEntry
	rows               int
	depth, r429        []policyXYs
	stats              []timelineStats
	maxDepth, total429 float64
}

type policyXYs struct {
	pol string
	k   int // index in tl.pols
	xys plotter.XYs
}

// timelineStats are one policy's extremes on one model.
type timelineStats struct {
	pol                            string
	maxRunning, minLimit, maxLimit float64
	lastLimit, maxDepth, rejected  float64
	hasLimit                       bool
}

// addLines draws each policy's running jobs and limit on top and collects
// its gateway depth and 429s for the panels below.
func (tl *timelines) addLines(top *plot.Plot, model string) (timelineLines, error) {
	var out timelineLines
	for k, pol := range tl.pols {
		ci := tl.roles.colorIndex(pol, k)
		c := policyColor(ci)
		rs := tl.by[seriesKey{pol, model}]
		out.rows += len(rs)
		running, limit, depth, r429 := tl.samples(pol, rs)
		if err := addRunLine(top, running, ci, tl.width(ci)); err != nil {
			return out, err
		}
		if err := addLine(top, limit, darker(c), tl.width(ci), true); err != nil {
			return out, err
		}
		st := summarizeTimeline(pol, running, limit, depth, r429)
		out.depth = append(out.depth, policyXYs{pol, k, depth})
		out.r429 = append(out.r429, policyXYs{pol, k, r429})
		out.stats = append(out.stats, st)
		out.maxDepth, out.total429 = max(out.maxDepth, st.maxDepth), out.total429+st.rejected
		out.legend = append(out.legend, legendEntry{tl.roles.label(pol), runThumb(ci, vg.Points(3))})
	}
	return out, nil
}

// width is the line width of a policy: the baseline's thinner when both
// are drawn.
func (tl *timelines) width(colorIndex int) vg.Length {
	if colorIndex == 0 && len(tl.pols) > 1 {
		return vg.Points(1.1)
	}
	return vg.Points(1.4)
}

// countPanel is a panel of one count per policy over time, on an integer
// axis, with a layer under the lines for the event marks.
func (tl *timelines) countPanel(ylabel string, lines []policyXYs) (*plot.Plot, *layer) {
	p := newPlot("", "", ylabel)
	newGrid(p, true, true)
	under := &layer{}
	p.Add(under)
	p.Y.Tick.Marker = intTicks{}
	for _, l := range lines {
		ci := tl.roles.colorIndex(l.pol, l.k)
		// addLine only fails on fewer than one point or NaN; samples are
		// finite and empty lines are skipped.
		_ = addRunLine(p, l.xys, ci, tl.width(ci))
	}
	return p, under
}

// layer is a place in a plot's drawing order filled in later: the marks
// known only once every panel exists, drawn under the lines added since.
type layer struct{ plot.Plotter }

// Plot implements plot.Plotter.
func (l *layer) Plot(c draw.Canvas, p *plot.Plot) {
	if l.Plotter != nil {
		l.Plotter.Plot(c, p)
	}
}

func summarizeTimeline(pol string, running, limit, depth, r429 plotter.XYs) timelineStats {
	st := timelineStats{pol: pol, minLimit: math.Inf(1)}
	for _, xy := range running {
		st.maxRunning = max(st.maxRunning, xy.Y)
	}
	for _, xy := range limit {
		st.minLimit, st.maxLimit, st.lastLimit, st.hasLimit = min(st.minLimit, xy.Y), max(st.maxLimit, xy.Y), xy.Y, true
	}
	for _, xy := range depth {
		st.maxDepth = max(st.maxDepth, xy.Y)
	}
	for _, xy := range r429 {
		st.rejected += xy.Y
	}
	return st
}

// samples are a model's running jobs, limit, depth and 429s at each sample
// time of policy pol. Rows exist only while a model has anything going on:
// a missing sample is zero running, depth and 429s (and no limit).
func (tl *timelines) samples(pol string, rs []results.SeriesRecord) (running, limit, depth, r429 plotter.XYs) {
	at := map[float64]results.SeriesRecord{}
	for _, r := range rs {
		at[r.T] = r
	}
	col := extraColumn(tl.o, "rejected_429")
	for _, t := range tl.grid[pol] {
		r, ok := at[t]
		x := t / tl.scale
		running = append(running, plotter.XY{X: x, Y: float64(r.Running)})
		depth = append(depth, plotter.XY{X: x, Y: float64(r.Depth)})
		rejected := 0.0
		if col >= 0 && col < len(r.Extra) {
			rejected = fin(r.Extra[col])
		}
		r429 = append(r429, plotter.XY{X: x, Y: rejected})
		if ok && r.Limit != results.NoLimit {
			limit = append(limit, plotter.XY{X: x, Y: float64(r.Limit)})
		}
	}
	return running, limit, depth, r429
}

// addMarks marks the end of the warm-up and the disturbances that concern
// model in every panel's layer (labelled on the first) and describes the
// disturbances.
func (tl *timelines) addMarks(layers []*layer, model string) (events []string) {
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
	layers[0].Plotter = marks
	for _, l := range layers[1:] {
		l.Plotter = bare
	}
	return events
}

// caption says what the panels show, which is missing and why, and what
// the data did under each policy.
func (tl *timelines) caption(model string, lines timelineLines, events []string) string {
	c := model + ", sampled every series interval. Top: jobs holding a container (solid) and the policy's running-job limit " +
		"(dashed; for fixed-lane its fixed cap)."
	switch {
	case lines.maxDepth > 0 && lines.total429 > 0:
		c += " Below: calls queued at the gateway, then tries rejected with 429 per sample (a rejected call waits in backoff, not in the queue)."
	case lines.maxDepth > 0:
		c += " Below: calls queued at the gateway. No try was rejected with 429, so there is no 429 panel."
	case lines.total429 > 0:
		c += " Below: tries rejected with 429 per sample. The gateway queue stayed at 0 calls throughout, so it has no panel: " +
			"calls waited in 429 backoff, not in the queue."
	default:
		c += " The gateway queue stayed at 0 calls and no try was rejected with 429, so there is no panel below: calls never waited at the gateway."
	}
	if len(events) > 0 {
		c += " Dotted vertical lines: the end of the warm-up, " + strings.Join(events, ", ") +
			" (red: a capacity event on this model; grey: bursts of batches)."
	}
	var per []string
	for _, st := range lines.stats {
		p := fmt.Sprintf("%s: running jobs peaked at %s", st.pol, count(int64(st.maxRunning)))
		if st.hasLimit && st.minLimit != st.maxLimit {
			p += fmt.Sprintf(", the limit moved between %s and %s and ended at %s", count(int64(st.minLimit)), count(int64(st.maxLimit)),
				count(int64(st.lastLimit)))
		} else if st.hasLimit {
			p += fmt.Sprintf(", the limit stayed at %s", count(int64(st.maxLimit)))
		}
		p += fmt.Sprintf(", gateway queue peak %s calls, %s 429s", count(int64(st.maxDepth)), count(int64(st.rejected)))
		per = append(per, p)
	}
	return c + " " + strings.Join(per, "; ") + ". " + laneFacts(tl.o.Summary, model)
}
