package results

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

type batchTrack struct {
	batch, model string
	large        bool
	first        float64 // first sample, any policy
	last         float64
	jobs         int32 // most jobs seen, any policy
	rows         map[string][]BatchRecord
}

func trackBatches(o *Outputs) map[string]*batchTrack {
	bs := map[string]*batchTrack{}
	for _, r := range o.Batches {
		if math.IsNaN(r.T) || math.IsInf(r.T, 0) {
			continue
		}
		b := bs[r.Batch]
		if b == nil {
			b = &batchTrack{batch: r.Batch, model: r.Model, first: r.T, last: r.T, rows: map[string][]BatchRecord{}}
			bs[r.Batch] = b
		}
		b.large = b.large || r.Class == "large"
		b.first, b.last = min(b.first, r.T), max(b.last, r.T)
		b.jobs = max(b.jobs, r.Jobs)
		b.rows[r.Policy] = append(b.rows[r.Policy], r)
	}
	for _, b := range bs {
		for _, rs := range b.rows {
			sort.SliceStable(rs, func(i, j int) bool { return rs[i].T < rs[j].T })
		}
	}
	return bs
}

// pickBatches picks the large batch with the most jobs that has a small
// batch behind it (same model, arrived after it), and that small batch,
// preferring one tracked under every policy, then the earliest.
func pickBatches(bs map[string]*batchTrack, npol int) (large, small *batchTrack) {
	var larges, smalls []*batchTrack
	for _, b := range bs {
		if b.large {
			larges = append(larges, b)
		} else {
			smalls = append(smalls, b)
		}
	}
	sort.Slice(larges, func(i, j int) bool {
		if larges[i].jobs != larges[j].jobs {
			return larges[i].jobs > larges[j].jobs
		}
		return larges[i].batch < larges[j].batch
	})
	sort.Slice(smalls, func(i, j int) bool {
		if smalls[i].first != smalls[j].first {
			return smalls[i].first < smalls[j].first
		}
		return smalls[i].batch < smalls[j].batch
	})
	for _, l := range larges {
		var best *batchTrack
		for _, s := range smalls {
			if s.model != l.model || s.first < l.first || s.first > l.last {
				continue
			}
			if best == nil || len(s.rows) > len(best.rows) {
				best = s
			}
			if len(best.rows) >= npol {
				break
			}
		}
		if best != nil {
			return l, best
		}
	}
	if len(larges) > 0 {
		return larges[0], nil
	}
	if len(smalls) > 0 {
		return nil, smalls[0]
	}
	return nil, nil
}

// batchFigure: the progress of a small batch behind a large one, per
// policy.
func batchFigure(o *Outputs) (figSpec, error) {
	const name = "batch-progress"
	title := "Fairness: a small batch behind a large one"
	pols := policies(o)
	large, small := pickBatches(trackBatches(o), len(pols))
	if large == nil && small == nil {
		return placeholder(name, title, "batches.csv has no large batch and no small batch behind one (no batch of more than 1000 jobs)"), nil
	}
	var shown []*batchTrack // large first, either may be missing
	for _, b := range []*batchTrack{large, small} {
		if b != nil {
			shown = append(shown, b)
		}
	}
	end := runEnd(o)
	scale, unit := timeUnit(end)
	p := newPlot("", "time ("+unit+")", "fraction of the batch's jobs done")
	newGrid(p, true, true)
	legend, err := batchLines(p, o, pols, shown, small != nil && large != nil, scale)
	if err != nil {
		return figSpec{}, err
	}
	marks := &vMarks{}
	var desc []string
	if large != nil {
		legend = append(legend, legendEntry{fmt.Sprintf("large %s (%s, %d jobs)", large.batch, large.model, large.jobs), lineThumb(grey, vg.Points(1.6), false)})
		desc = append(desc, fmt.Sprintf("the large batch %s (%s, %d jobs, the largest tracked)", large.batch, large.model, large.jobs))
	}
	if small != nil {
		legend = append(legend, legendEntry{fmt.Sprintf("small %s (%d jobs)", small.batch, small.jobs), lineThumb(grey, vg.Points(1.6), large != nil)})
		marks.add(small.first/scale, "small batch arrives", grey, true)
		desc = append(desc, fmt.Sprintf("the small batch %s (%d jobs) that arrived at %s behind it on the same model", small.batch, small.jobs, formatClock(small.first)))
	}
	p.Add(marks)
	timeAxis(&p.X, unit, end)
	// start shortly before the batches: the rest of the run is empty here
	from := math.Inf(1)
	for _, b := range shown {
		from = min(from, b.first)
	}
	if from < end {
		p.X.Min = max(0, from-0.05*(end-from)) / scale
	}
	p.Y.Min, p.Y.Max = 0, 1.02
	caption := "Share of jobs done over time for " + strings.Join(desc, " and ") + ", under each policy (batches.csv; " +
		"the share is of the jobs arrived so far, so it can dip while a batch is still arriving). " +
		"Look for the small batch finishing soon after it arrives under the new policy instead of waiting for the large one to drain. " +
		strings.Join(batchEnds(pols, shown), "; ") + "."
	return figSpec{name: name, title: title, caption: caption, w: 10 * vg.Inch, h: 4.8 * vg.Inch,
		draw: figureWithLegend(title, [][]*plot.Plot{{p}}, legend)}, nil
}

// batchLines draws the share of jobs done of each shown batch under each
// policy (the second batch dashed if dashSecond) and returns a legend entry
// per policy drawn.
func batchLines(p *plot.Plot, o *Outputs, pols []string, shown []*batchTrack, dashSecond bool, scale float64) ([]legendEntry, error) {
	roles := newPolicyRoles(o.Summary)
	var legend []legendEntry
	for k, pol := range pols {
		c := policyColor(roles.colorIndex(pol, k))
		drawn := false
		for i, b := range shown {
			var xys plotter.XYs
			for _, r := range b.rows[pol] {
				f := 0.0
				if r.Jobs > 0 {
					f = float64(r.Done) / float64(r.Jobs)
				}
				xys = append(xys, plotter.XY{X: r.T / scale, Y: f})
			}
			drawn = drawn || len(xys) > 0
			if err := addLine(p, xys, c, vg.Points(1.6), i == 1 && dashSecond); err != nil {
				return nil, err
			}
		}
		if drawn {
			legend = append(legend, legendEntry{roles.label(pol), lineThumb(c, vg.Points(3), false)})
		}
	}
	return legend, nil
}

// batchEnds says, per policy and batch, when the batch was done or how far
// it got.
func batchEnds(pols []string, shown []*batchTrack) []string {
	var ends []string
	for _, pol := range pols {
		for _, b := range shown {
			rs := b.rows[pol]
			if len(rs) == 0 {
				continue
			}
			last := rs[len(rs)-1]
			if last.Done >= last.Jobs && last.Jobs > 0 {
				ends = append(ends, fmt.Sprintf("%s: %s done at %s", pol, b.batch, formatClock(last.T)))
			} else {
				ends = append(ends, fmt.Sprintf("%s: %s %d of %d done at the end", pol, b.batch, last.Done, last.Jobs))
			}
		}
	}
	return ends
}
