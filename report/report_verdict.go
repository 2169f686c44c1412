package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/evalsched/lab/results"
)

// verdict is the box at the top of the report: the headline (what changed
// and by how much, for the evaluation lanes and grading apart, with the
// interval over seeds), a sentence of detail, and per hot lane and in total
// what a design review decides on.
type verdict struct {
	Reading string
	Detail  string
	Table   table
}

// headlineOf is the output directory's headline.json, or one made from
// summary.json's first-seed runs when the directory has none (then there is
// no interval over seeds).
func headlineOf(o *input) results.Headline {
	var h results.Headline
	if o.Dir != "" && results.FileExists(filepath.Join(o.Dir, results.HeadlineFile)) {
		if err := results.ReadJSONFile(filepath.Join(o.Dir, results.HeadlineFile), &h); err == nil && len(h.Sentences) > 0 {
			return h
		}
	}
	s := o.Summary
	if len(s.Runs) == 0 {
		return h
	}
	return results.NewHeadline(s.Scenario, s.Seed, [][]results.Run{s.Runs})
}

// verdictLane is one row of the verdict: per run (old, new) values.
type verdictLane struct {
	model      string
	perHour    []float64
	cost       []float64
	gatewayH   []float64
	r429       []int64
	outageMin  []int64
	jain       []*float64 // total row only
	multiplier *float64   // nil over fewer than MinRatioCompleted baseline jobs
	// oldCompleted is the baseline's completed jobs in the window.
	oldCompleted int64
	ci           *results.MultiplierStat
	headroom     []float64 // headroom captured (busy ÷ offered stream-seconds)
}

// buildVerdict reads the hot lanes (those with timeline figures) and the
// total of the summary's first two runs (or its single run).
func buildVerdict(o *input) verdict {
	s := o.Summary
	old, new := runsOf(s)
	if new == nil {
		return verdict{Table: table{Title: "Verdict", Note: "summary.json has no run."}}
	}
	runs := []results.Run{*new}
	if old != nil {
		runs = []results.Run{*old, *new}
	}
	var lanes []verdictLane
	for _, m := range hotLanes(o) {
		lanes = append(lanes, laneVerdict(s, runs, m))
	}
	total := laneVerdict(s, runs, "")
	h := headlineOf(o)
	if len(h.Pairs) > 0 && h.Pairs[0].All.AcrossSeeds != nil {
		a := h.Pairs[0].All
		total.ci = &results.MultiplierStat{Model: results.AllLanes, RatioStat: *a.AcrossSeeds, NearZeroSeeds: a.NearZeroSeeds}
	}
	v := verdict{Table: table{Title: "Verdict", Head: verdictHead(len(runs) == 2)}}
	for _, l := range lanes {
		v.Table.Rows = append(v.Table.Rows, verdictRow(l))
	}
	v.Table.Total = verdictRow(total)
	v.Reading = strings.Join(h.Sentences, " ")
	v.Detail = verdictReading(runs, lanes, total)
	v.Table.Note = verdictNote(s, len(runs) == 2, total.ci != nil)
	return v
}

func verdictHead(compare bool) []string {
	if !compare {
		return []string{"lane", "jobs/h", "headroom captured", "container cost", "gateway-wait ctr-h", "429s", "production outage min", "Jain"}
	}
	return []string{"lane", "multiplier", "headroom captured old → new", "container cost old → new", "gateway-wait ctr-h old → new", "429s old → new",
		"production outage min old → new", "Jain old → new"}
}

func verdictNote(s results.Summary, compare, totalCI bool) string {
	n := "Hot lanes: the lanes holding the most containers under the new policy (those with timeline figures); measurement window, " +
		"except production outage minutes (whole run, summed over the lane's production streams). Jain's index is per run, on the total row. "
	if compare {
		n += "Multiplier = new ÷ old throughput; cost and the rest read old → new with new ÷ old in brackets. "
	}
	if len(s.MultiplierAcrossSeeds) > 0 {
		n += fmt.Sprintf("Multipliers over seeds %s: the geometric mean of the per-seed multipliers and its 95%% interval, then the first seed's; "+
			"the lanes from summary.json's multiplier_across_seeds", seedList(s.Seeds))
		if totalCI {
			n += ", the total from headline.json"
		}
		n += ". "
	}
	return n + "Headroom captured: the lane's busy provider stream-seconds ÷ the stream-seconds its provider offered " +
		"(after capacity events), i.e. its throughput ÷ what its streams allow at the measured per-call service; read the multiplier beside it."
}

// laneVerdict collects model's numbers in each run; "" is the total.
func laneVerdict(s results.Summary, runs []results.Run, model string) verdictLane {
	v := verdictLane{model: model}
	for _, r := range runs {
		l := r.Total
		if model != "" {
			l = laneOf(r, model)
		}
		v.perHour = append(v.perHour, l.ThroughputPerHour)
		v.cost = append(v.cost, l.ContainerCost)
		v.headroom = append(v.headroom, l.HeadroomCaptured)
		v.gatewayH = append(v.gatewayH, l.GatewayWaitContainerSeconds/3600)
		v.r429 = append(v.r429, l.Rejected429)
		v.outageMin = append(v.outageMin, outageMinutes(r, model))
		v.jain = append(v.jain, r.Fairness.JainPerLane)
	}
	if len(runs) == 2 {
		old := runs[0].Total
		if model != "" {
			old = laneOf(runs[0], model)
		}
		v.oldCompleted = old.Completed
		if v.perHour[0] > 0 && results.RatioShown(old.Completed) { // as the tables print it
			m := v.perHour[1] / v.perHour[0]
			v.multiplier = &m
		}
	}
	for i, m := range s.MultiplierAcrossSeeds {
		if model != "" && m.Model == model {
			v.ci = &s.MultiplierAcrossSeeds[i]
		}
	}
	return v
}

// laneOf is run's lane of model (zero if it has none).
func laneOf(r results.Run, model string) results.Lane {
	for _, l := range r.Lanes {
		if l.Model == model {
			return l
		}
	}
	return results.Lane{Model: model}
}

// outageMinutes sums outage_minutes (success rate below the stream's
// threshold) over run's production streams of model (all streams for "").
func outageMinutes(r results.Run, model string) int64 {
	var n int64
	for _, p := range r.Production {
		if model == "" || p.Model == model {
			n += p.OutageMinutes
		}
	}
	return n
}

func verdictRow(v verdictLane) []string {
	name := v.model
	if name == "" {
		name = results.AllLanes
	}
	if len(v.perHour) == 1 {
		return []string{name, f1(v.perHour[0]), pct(v.headroom[0]), f2(v.cost[0]), f1(v.gatewayH[0]), count(v.r429[0]), count(v.outageMin[0]),
			jainCell(v, 0)}
	}
	jain := "-"
	if v.model == "" {
		jain = jainCell(v, 0) + " → " + jainCell(v, 1)
	}
	return []string{name, multiplierCell(v), pct(v.headroom[0]) + " → " + pct(v.headroom[1]), change(v.cost[0], v.cost[1], f2), change(v.gatewayH[0], v.gatewayH[1], f1),
		change(float64(v.r429[0]), float64(v.r429[1]), func(x float64) string { return count(int64(x)) }),
		change(float64(v.outageMin[0]), float64(v.outageMin[1]), func(x float64) string { return count(int64(x)) }), jain}
}

func jainCell(v verdictLane, i int) string {
	if v.model != "" {
		return "-"
	}
	return results.JainText(v.jain[i])
}

func multiplierCell(v verdictLane) string {
	m := fmt.Sprintf("n/a (old %d)", v.oldCompleted)
	if v.multiplier != nil {
		m = fmt.Sprintf("%.2f×", *v.multiplier)
	}
	if c := v.ci; c != nil {
		switch {
		case c.Low != nil && c.High != nil:
			return fmt.Sprintf("%.2f× [%.2f, %.2f] over %d seeds (first seed %s)", c.Mean, *c.Low, *c.High, c.Seeds, m)
		case c.Seeds == 0:
			return fmt.Sprintf("near-zero baseline on every seed (first seed %s)", m)
		}
	}
	return m
}

// change is "old → new (×ratio)", the ratio left out when old is 0.
func change(old, new float64, format func(float64) string) string {
	s := format(old) + " → " + format(new)
	if old > 0 {
		s += fmt.Sprintf(" (%s×)", ratioText(new/old))
	}
	return s
}

func ratioText(r float64) string {
	if r >= 10 {
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.2g", r)
}

// verdictReading is one sentence made of the numbers: the total, the best
// and worst hot lanes, production, 429s and fairness.
func verdictReading(runs []results.Run, lanes []verdictLane, total verdictLane) string {
	if len(runs) == 1 {
		return fmt.Sprintf("%s completed %s jobs/h at a container cost of %s; production lost %s minutes; %s 429s; Jain %s.",
			runs[0].Policy, f1(total.perHour[0]), f2(total.cost[0]), count(total.outageMin[0]), count(total.r429[0]), results.JainText(total.jain[0]))
	}
	oldP, newP := runs[0].Policy, runs[1].Policy
	var parts []string
	if c := total.ci; c != nil && c.Low != nil && c.High != nil {
		parts = append(parts, fmt.Sprintf("%s took %.2f× [%.2f, %.2f] the %s throughput in total over %d seeds%s", newP, c.Mean, *c.Low, *c.High, oldP,
			c.Seeds, costClause(total, "container cost on the first seed")))
	} else if total.multiplier != nil {
		parts = append(parts, fmt.Sprintf("%s took %.2f× the %s throughput in total%s", newP, *total.multiplier, oldP,
			costClause(total, "container cost")))
	} else {
		parts = append(parts, fmt.Sprintf("%s completed %s jobs/h where %s completed %s in the window (too few for a ratio)", newP, f1(total.perHour[1]), oldP,
			plural(int(total.oldCompleted), "job", "jobs")))
	}
	if best, worst := extremes(lanes); best != nil {
		parts = append(parts, fmt.Sprintf("%.2f× on %s%s", *best.multiplier, best.model, costClause(*best, "cost")))
		if worst != best {
			parts = append(parts, fmt.Sprintf("%.2f× on %s", *worst.multiplier, worst.model))
		}
	}
	if len(runs[0].Production)+len(runs[1].Production) > 0 {
		parts = append(parts, fmt.Sprintf("production lost %s minutes (%s: %s)", count(total.outageMin[1]), oldP, count(total.outageMin[0])))
	}
	if total.r429[0]+total.r429[1] > 0 {
		parts = append(parts, fmt.Sprintf("429s %s → %s", count(total.r429[0]), count(total.r429[1])))
	}
	parts = append(parts, fmt.Sprintf("Jain %s → %s", results.JainText(total.jain[0]), results.JainText(total.jain[1])))
	return "The " + strings.Join(parts, "; ") + "."
}

// costClause is " at r× the <what>" (new cost ÷ old), or nothing when the
// old run cost nothing (no container price, or no container held): there
// is no ratio to give.
func costClause(v verdictLane, what string) string {
	if v.cost[0] <= 0 {
		return ""
	}
	return " at " + ratioText(v.cost[1]/v.cost[0]) + "× the " + what
}

// extremes are the hot lanes with the highest and lowest multiplier.
func extremes(lanes []verdictLane) (best, worst *verdictLane) {
	for i := range lanes {
		l := &lanes[i]
		if l.multiplier == nil {
			continue
		}
		if best == nil || *l.multiplier > *best.multiplier {
			best = l
		}
		if worst == nil || *l.multiplier < *worst.multiplier {
			worst = l
		}
	}
	return best, worst
}
