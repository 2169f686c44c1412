package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/evalsched/lab/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

type batchTrack struct {
	batch, model string
	large        bool
	first        float64 // first sample, any policy
	last         float64
	jobs         int32                            // most jobs seen, any policy
	policies     map[string]struct{}              // the policies that tracked it
	rows         map[string][]results.BatchRecord // per policy, by time: filled for the picked batches only
}

// trackBatches is what batches.csv says of each tracked batch, without its
// rows (a week holds hundreds of thousands; the figure draws two batches).
func trackBatches(o *input) map[string]*batchTrack {
	bs := map[string]*batchTrack{}
	for _, r := range o.Batches {
		if !results.Finite(r.T) {
			continue
		}
		b := bs[r.Batch]
		if b == nil {
			b = &batchTrack{batch: r.Batch, model: r.Model, first: r.T, last: r.T, policies: map[string]struct{}{}}
			bs[r.Batch] = b
		}
		b.large = b.large || r.Class == results.BatchLarge
		b.first, b.last = min(b.first, r.T), max(b.last, r.T)
		b.jobs = max(b.jobs, r.Jobs)
		b.policies[r.Policy] = struct{}{}
	}
	return bs
}

// fillRows gathers the rows of the batches given (nil ones skipped), per
// policy, in time order (rows of one time in file order).
func fillRows(o *input, bs ...*batchTrack) {
	want := map[string]*batchTrack{}
	for _, b := range bs {
		if b != nil {
			b.rows = map[string][]results.BatchRecord{}
			want[b.batch] = b
		}
	}
	for _, r := range o.Batches {
		if b := want[r.Batch]; b != nil && results.Finite(r.T) {
			b.rows[r.Policy] = append(b.rows[r.Policy], r)
		}
	}
	for _, b := range want {
		for _, rs := range b.rows {
			sort.SliceStable(rs, func(i, j int) bool { return rs[i].T < rs[j].T })
		}
	}
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
			if best == nil || len(s.policies) > len(best.policies) {
				best = s
			}
			if len(best.policies) >= npol {
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
// policy: the large batch over run time, the small one over the time since
// it arrived (on the run's scale a small batch's minutes would be a
// vertical line).
func batchFigure(o *input) (figSpec, error) {
	const name = "batch-progress"
	title := "Fairness: a small batch behind a large one"
	pols := policies(o)
	large, small := pickBatches(trackBatches(o), len(pols))
	fillRows(o, large, small)
	if large == nil && small == nil {
		return placeholder(name, title, "batches.csv has no large batch and no small batch behind one (no batch of more than 1000 jobs)"), nil
	}
	end := runEnd(o)
	scale, unit := timeUnit(end)
	roles := newPolicyRoles(o.Summary)
	var row []*plot.Plot
	var desc []string
	var legend []legendEntry
	if large != nil {
		p := newPlot(fmt.Sprintf("large %s (%s, %s jobs)", large.batch, large.model, count(int64(large.jobs))), "time ("+unit+")",
			"share of arrived jobs done")
		drawn, err := batchLines(p, roles, pols, large, func(t float64) float64 { return t / scale })
		if err != nil {
			return figSpec{}, err
		}
		legend = drawn
		timeAxis(&p.X, unit, end)
		p.X.Min = max(0, large.first-0.05*(end-large.first)) / scale
		if small != nil {
			marks := &vMarks{}
			marks.add(small.first/scale, "small batch arrives", grey, true)
			p.Add(marks)
		}
		row = append(row, p)
		desc = append(desc, fmt.Sprintf("left, the large batch %s (%s, %s jobs, the largest tracked) over the run", large.batch, large.model,
			count(int64(large.jobs))))
	}
	if small != nil {
		p, sdesc, drawn, err := smallBatchPanel(roles, pols, small, large != nil)
		if err != nil {
			return figSpec{}, err
		}
		if legend == nil {
			legend = drawn
		}
		row = append(row, p)
		desc = append(desc, sdesc)
	}
	for _, p := range row {
		newGrid(p, true, true)
		p.Y.Min, p.Y.Max = 0, 1.02
	}
	caption := "Share of each batch's arrived jobs that are done, under each policy (batches.csv; it can dip while a batch is still " +
		"arriving): " + strings.Join(desc, "; ") + ". " + strings.Join(batchEnds(pols, large, small), "; ") + "."
	return figSpec{name: name, title: title, caption: caption, w: 10 * vg.Inch, h: 4.8 * vg.Inch,
		draw: figureWithLegend(title, [][]*plot.Plot{row}, legend)}, nil
}

// smallBatchPanel draws the small batch over the seconds (or minutes) since
// it arrived, the axis fitted to its slowest policy.
func smallBatchPanel(roles policyRoles, pols []string, small *batchTrack, behind bool) (*plot.Plot, string, []legendEntry, error) {
	// Fit the axis to the policies that finished it (with room to see the
	// others lag), else to everything.
	span, done := 0.0, 0.0
	for _, rs := range small.rows {
		if len(rs) == 0 {
			continue
		}
		last := rs[len(rs)-1]
		span = max(span, last.T-small.first)
		if last.Jobs > 0 && last.Done >= last.Jobs {
			done = max(done, last.T-small.first)
		}
	}
	if done > 0 {
		span = min(span, 3*done)
	}
	scale, unit := 1.0, "s"
	if span > 1800 {
		scale, unit = 60, "min"
	}
	p := newPlot(fmt.Sprintf("small %s (%s jobs)", small.batch, count(int64(small.jobs))), "time since it arrived ("+unit+")",
		"share of arrived jobs done")
	legend, err := batchLines(p, roles, pols, small, func(t float64) float64 { return (t - small.first) / scale })
	if err != nil {
		return nil, "", nil, err
	}
	p.X.Min, p.X.Max = 0, max(span*1.05, 1)/scale
	where := "right, "
	if !behind {
		where = ""
	}
	desc := fmt.Sprintf("%sthe small batch %s (%s jobs) that arrived at %s on the same model, over the time since it arrived (the axis fits the policies that finished it)",
		where, small.batch, count(int64(small.jobs)), formatClock(small.first))
	return p, desc, legend, nil
}

// batchLines draws batch b's share of jobs done under each policy, x
// mapped by x, and returns a legend entry per policy drawn.
func batchLines(p *plot.Plot, roles policyRoles, pols []string, b *batchTrack, x func(t float64) float64) ([]legendEntry, error) {
	var legend []legendEntry
	for k, pol := range pols {
		ci := roles.colorIndex(pol, k)
		var xys plotter.XYs
		for _, r := range b.rows[pol] {
			f := 0.0
			if r.Jobs > 0 {
				f = float64(r.Done) / float64(r.Jobs)
			}
			xys = append(xys, plotter.XY{X: x(r.T), Y: f})
		}
		if err := addRunLine(p, xys, ci, vg.Points(1.6)); err != nil {
			return nil, err
		}
		if len(xys) > 0 {
			legend = append(legend, legendEntry{roles.label(pol), runThumb(ci, vg.Points(3))})
		}
	}
	return legend, nil
}

// batchEnds says, per policy and batch, when the batch was done (the small
// one: how long after it arrived) or how far it got, out of the jobs the
// figure names.
func batchEnds(pols []string, large, small *batchTrack) []string {
	var ends []string
	for _, pol := range pols {
		for _, b := range []*batchTrack{large, small} {
			if b == nil || len(b.rows[pol]) == 0 {
				continue
			}
			rs := b.rows[pol]
			last := rs[len(rs)-1]
			switch {
			case last.Done >= last.Jobs && last.Jobs > 0 && b == small:
				ends = append(ends, fmt.Sprintf("%s: %s done %s after it arrived", pol, b.batch, formatClock(last.T-b.first)))
			case last.Done >= last.Jobs && last.Jobs > 0:
				ends = append(ends, fmt.Sprintf("%s: %s done at %s", pol, b.batch, formatClock(last.T)))
			default:
				ends = append(ends, fmt.Sprintf("%s: %s had %s of its %s jobs done at the end", pol, b.batch, count(int64(last.Done)),
					count(int64(b.jobs))))
			}
		}
	}
	return ends
}
