package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/evalsched/lab/results"
)

// hotLanes are the lanes holding the most containers under the new policy
// (mean running jobs): where a running-job limit matters. Found once per
// Outputs (the series fallback needs the rows, which a report lets go once
// its figures are prepared).
func hotLanes(o *input) []string {
	if !o.hotFound {
		o.hot, o.hotFound = findHotLanes(o), true
	}
	return o.hot
}

// input is a run's outputs as a report reads them, with what the report
// works out from them once.
type input struct {
	*results.Outputs
	hot      []string // hotLanes, once found
	hotFound bool
}

func findHotLanes(o *input) []string {
	_, new := runsOf(o.Summary)
	var lanes []results.Lane
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
func disturbances(s results.Summary) []results.Disturbance {
	seen := map[results.Disturbance]bool{}
	var out []results.Disturbance
	for _, r := range s.Runs {
		for _, c := range r.Convergence {
			d := c.Disturbance
			if seen[d] || d.IsStart() {
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

// indexSeries gathers the rows of the given models by policy and model,
// each sorted by time, and the sample times of each policy over every row.
// Only the models drawn are copied: a week of 241 lanes has millions of rows.
func indexSeries(o *input, models []string) (map[seriesKey][]results.SeriesRecord, map[string][]float64) {
	by := map[seriesKey][]results.SeriesRecord{}
	drawn := map[string]bool{}
	for _, m := range models {
		drawn[m] = true
	}
	times := map[string]map[float64]bool{}
	for _, r := range o.Series {
		if drawn[r.Model] {
			k := seriesKey{r.Policy, r.Model}
			by[k] = append(by[k], r)
		}
		if times[r.Policy] == nil {
			times[r.Policy] = map[float64]bool{}
		}
		times[r.Policy][r.T] = true
	}
	grid := map[string][]float64{}
	for p, ts := range times {
		g := make([]float64, 0, len(ts))
		for t := range ts {
			if results.Finite(t) {
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
func timelineFigures(o *input) ([]figSpec, error) {
	hot := hotLanes(o)
	if len(hot) == 0 {
		return []figSpec{placeholder("timeline", "Running jobs, limit and gateway depth over time",
			"no lane had any job and series.csv has no row")}, nil
	}
	tl := timelines{o: o, roles: newPolicyRoles(o.Summary), pols: policies(o), ds: disturbances(o.Summary), end: runEnd(o)}
	tl.by, tl.grid = indexSeries(o, hot)
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
	o     *input
	roles policyRoles
	pols  []string
	by    map[seriesKey][]results.SeriesRecord
	grid  map[string][]float64 // sample times per policy
	ds    []results.Disturbance
	end   float64 // seconds
	scale float64 // seconds per unit
	unit  string
}

// laneFacts states a lane's throughput and the scheduler's settled limits.
func laneFacts(s results.Summary, model string) string {
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
