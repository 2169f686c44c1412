package studies

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/sim"
	"go.yaml.in/yaml/v3"
)

// MeterPresets are the meters the study runs every scenario under: today's
// meter (no preset) and each provider preset of scenario/presets.go.
// ByProvider puts each organisation named after a provider (anthropic,
// openai) on that provider's preset and leaves the others on today's.
var MeterPresets = []string{"", "anthropic", "openai", "azure-openai", ByProvider}

// ByProvider is the study's mixed meter: the organisations named anthropic
// and openai on their own provider's preset, the others on today's meter.
const ByProvider = "by provider"

// MetersSeeds is how many seeds the study's paired runs take per scenario
// and meter (the incident is one night: one seed).
const MetersSeeds = 3

// meterCase is one scenario of the study and the arms it compares.
type meterCase struct {
	scenario string
	// old and new are the arms whose ratio is the multiplier: variants of
	// the scenario, or policies when the scenario declares none for it.
	old, new studyArm
	seeds    int
	lanes    []string // the lanes tabulated, besides (all)
}

var meterCases = []meterCase{
	{scenario: "default", old: studyArm{Policy: "fixed-lane"}, new: studyArm{Policy: "scheduler"}, seeds: MetersSeeds,
		lanes: []string{"gpt-5.5", "claude-opus-4.8", "claude-opus-4.7", "claude-opus-5", "claude-sonnet-4.6", "claude-sonnet-5"}},
	{scenario: "azure-production", old: studyArm{Variant: "quota-fixed-lane"}, new: studyArm{Variant: "quota-scheduler"}, seeds: MetersSeeds,
		lanes: []string{"gpt-5.5", "claude-opus-4.8", "claude-opus-4.7", "claude-opus-5", "claude-sonnet-4.6", "claude-sonnet-5"}},
	{scenario: "incident-0214", old: studyArm{Variant: "no-guard"}, new: studyArm{Variant: "separate-org"}, seeds: 1},
}

func meterLabel(preset string) string {
	if preset == "" {
		return "today"
	}
	return preset
}

// meterArm is the arm's scenario with every organisation on the preset
// (nothing changed for today's meter).
func meterArm(sc *scenario.Scenario, arm studyArm, preset string) (*scenario.Variant, error) {
	v := &scenario.Variant{Name: arm.Policy, Policy: arm.Policy, Scenario: sc}
	if arm.Variant != "" {
		var err error
		if v, err = sc.Variant(arm.Variant); err != nil {
			return nil, err
		}
	}
	if preset == "" {
		return v, nil
	}
	var orgs strings.Builder
	orgs.WriteString("organisations:\n")
	for _, o := range v.Scenario.Organisations {
		preset := preset
		if preset == ByProvider {
			switch o.Name {
			case "anthropic", "openai":
				preset = o.Name
			default:
				continue
			}
		}
		// A token bucket admits a try when it holds the cost: a window's
		// under_limit rule has no meaning there, so a bucket preset takes fit.
		admission := ""
		if preset == "anthropic" && o.Admission == scenario.AdmitUnderLimit {
			admission = ", admission: fit"
		}
		fmt.Fprintf(&orgs, "  - {name: %q, preset: %s%s}\n", o.Name, preset, admission)
	}
	if orgs.Len() == len("organisations:\n") {
		return v, nil // no organisation named after a provider
	}
	var overlay yaml.Node
	if err := yaml.Unmarshal([]byte(orgs.String()), &overlay); err != nil {
		return nil, err
	}
	msc, err := v.Scenario.WithOverlay(&overlay)
	if err != nil {
		return nil, fmt.Errorf("%s under the %s preset: %w", sc.Name, preset, err)
	}
	return &scenario.Variant{Name: v.Name + "/" + preset, Policy: v.Policy, Scenario: msc}, nil
}

// meterRuns is one scenario's runs: runs[m][k] = {old, new} under meter m
// on seed k.
type meterRuns struct {
	c     meterCase
	sc    *scenario.Scenario
	runs  [][][]results.Run
	cells []meterCell
}

// moveBy is the relative change the study names as a move.
const moveBy = 0.05

// meterCell is one scenario's figures under one meter.
type meterCell struct {
	mult                                   float64 // (all), geometric mean over the seeds
	prodOld429, prodNew429                 int64
	outOld, outNew                         int64
	costOld, costNew                       float64
	cacheOld, cacheNew                     float64
	crossOld                               int
	missGwOld, missToolOld, missGw, missTl int64
}

// GenerateMetersStudy runs each case's two arms under today's meter and
// every preset and writes docs/studies/meters.md.
func GenerateMetersStudy(StudyOptions) (string, error) {
	var all []meterRuns
	var specs []sim.RunSpec
	type slot struct{ c, m, k, a int }
	var slots []slot
	for ci, c := range meterCases {
		sc, err := scenario.LoadScenario(c.scenario)
		if err != nil {
			return "", err
		}
		mr := meterRuns{c: c, sc: sc, runs: make([][][]results.Run, len(MeterPresets))}
		for m, preset := range MeterPresets {
			mr.runs[m] = make([][]results.Run, c.seeds)
			var arms [2]*scenario.Variant
			for a, arm := range []studyArm{c.old, c.new} {
				if arms[a], err = meterArm(sc, arm, preset); err != nil {
					return "", err
				}
			}
			for k := range c.seeds {
				mr.runs[m][k] = make([]results.Run, 2)
				for a := range arms {
					specs = append(specs, sim.RunSpec{Seed: uint64(1 + k), Variant: arms[a], Rows: results.Discard})
					slots = append(slots, slot{ci, m, k, a})
				}
			}
		}
		all = append(all, mr)
	}
	// The control for the anthropic preset on the incident: today's meter
	// with fit admission alone (the bucket preset takes fit, see meterArm).
	inc, err := scenario.LoadScenario("incident-0214")
	if err != nil {
		return "", err
	}
	fit, err := inc.Variant("fit-admission")
	if err != nil {
		return "", err
	}
	specs = append(specs, sim.RunSpec{Seed: 1, Variant: fit, Rows: results.Discard})
	runs, err := sim.ExecuteAll(all[0].sc, specs, nil)
	if err != nil {
		return "", err
	}
	for i, s := range slots {
		all[s.c].runs[s.m][s.k][s.a] = runs[i]
	}
	return metersStudy(all, runs[len(runs)-1]), nil
}

// costPerJob is dollars per completed job of the lane: its bill's when it
// has one, else its containers' (a lane billed without token prices costs
// its containers only, so the two agree).
func costPerJob(l results.Lane) float64 {
	if l.Bill != nil {
		return l.Bill.DollarsPerJob
	}
	return results.Ratio(l.ContainerCost, float64(l.Completed))
}

func cacheShare(l results.Lane) float64 {
	if l.Bill == nil {
		return 0
	}
	return l.Bill.CacheReadShare
}

// firstProduction429 is the first minute in which production was refused
// (−1: never).
func firstProduction429(r results.Run) int {
	first := -1
	for _, p := range r.Production {
		for _, m := range p.Minutes {
			if m.Rejected429 > 0 && (first < 0 || m.Minute < first) {
				first = m.Minute
			}
		}
	}
	return first
}

func metersStudy(all []meterRuns, fitControl results.Run) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("# What changes under the providers' meters\n\n")
	p("%s", generatedLine("sim study meters"))
	p("**Method.** The lab's quotas were rolling (or fixed-reset) windows over input plus the real output, counted at admission, with no prompt cache: \"today's meter\". ")
	p("The presets meter as the providers document (`scenario/presets.go` cites each rule's page and date; docs/concepts/quotas.md, Presets): each the rules read 2026-12-06: `anthropic` token buckets (RPM's holding 1 s), ITPM without cache reads, output counted as it is produced, a 5-minute cache from 1,024 tokens; `openai` rolling windows (RPM over 1 s) counting input and `max_tokens` at admission and failed requests, a 24-hour cache from 1,024 tokens; `azure-openai` fixed minutes for TPM and fixed 10 s windows for RPM (derived from the TPM when unset), input and `max_tokens` at admission, a 5-minute cache from 1,024 tokens. A cache entry is readable once its writer's response begins. ")
	p("Each scenario below is run under today's meter and with every organisation on each preset (an overlay `organisations: [{name: NAME, preset: PRESET}]`; limits unchanged; an organisation with `admission: under_limit`, a window's rule, takes `fit` under the `anthropic` preset's buckets, which admit a try when they hold its cost), both arms on the identical streams of the same seeds. A single-preset column puts every organisation on that preset, whichever provider it stands for (a counterfactual for the other provider's organisations); `%s` puts the organisations named `anthropic` and `openai` on their own provider's preset and leaves the others (the incident's `acme`, the tail's `other`) on today's meter. ", ByProvider)
	p("These scenarios set no `max_tokens` on their behaviours, so a preset that counts `max_tokens` counts the real output (docs/concepts/quotas.md, What a try costs), and they set no token prices, so a job's cost is its containers' (`container_cost` ÷ completed). ")
	p("The scenarios: `default` (no production, no binding quota), `azure-production`'s quota-bound arms (`quota-fixed-lane` against `quota-scheduler`: the anthropic organisation at 20M TPM, production sharing the openai organisation with gpt-5.5) and `incident-0214` (the incident, `no-guard`, against the separate organisation, `separate-org`). ")
	p("Multipliers are geometric means over the seeds (one seed: that seed's ratio).\n\n")

	type cell = meterCell
	moved := map[string][]string{}
	for i := range all {
		mr := &all[i]
		c := mr.c
		p("## %s (%s ÷ %s, %d seed%s)\n\n", mr.sc.Name, armName(c.new), armName(c.old), c.seeds, plural(c.seeds))
		p("%s ÷ %s per lane:\n\n", armName(c.new), armName(c.old))
		p("| lane |")
		for _, pr := range MeterPresets {
			p(" %s |", meterLabel(pr))
		}
		p("\n|---|")
		for range MeterPresets {
			p("---:|")
		}
		p("\n")
		lanes := append(append([]string{}, c.lanes...), results.AllLanes)
		mults := make([]float64, len(MeterPresets))
		for _, lane := range lanes {
			p("| %s |", lane)
			for m := range MeterPresets {
				var xs []float64
				for _, rs := range mr.runs[m] {
					o, n := pick(rs[0], lane), pick(rs[1], lane)
					if o.Completed > 0 && n.Completed > 0 {
						xs = append(xs, n.ThroughputPerHour/o.ThroughputPerHour)
					}
				}
				g, _, _, _ := results.LogRatioCI(xs, 0.95)
				if lane == results.AllLanes {
					mults[m] = g
				}
				if len(xs) == 0 {
					p(" - |")
				} else {
					p(" %.2f× |", g)
				}
			}
			p("\n")
		}
		p("\n")
		cells := make([]cell, len(MeterPresets))
		for m := range MeterPresets {
			var x cell
			for _, rs := range mr.runs[m] {
				for _, pr := range rs[0].Production {
					x.prodOld429 += pr.Rejected429
					x.outOld += pr.OutageMinutes
				}
				for _, pr := range rs[1].Production {
					x.prodNew429 += pr.Rejected429
					x.outNew += pr.OutageMinutes
				}
				n := float64(len(mr.runs[m]))
				x.costOld += costPerJob(rs[0].Total) / n
				x.costNew += costPerJob(rs[1].Total) / n
				x.cacheOld += cacheShare(rs[0].Total) / n
				x.cacheNew += cacheShare(rs[1].Total) / n
				if rs[0].Total.Bill != nil {
					x.missGwOld += rs[0].Total.Bill.CacheMissGateway
					x.missToolOld += rs[0].Total.Bill.CacheMissTool
				}
				if rs[1].Total.Bill != nil {
					x.missGw += rs[1].Total.Bill.CacheMissGateway
					x.missTl += rs[1].Total.Bill.CacheMissTool
				}
			}
			x.crossOld = firstProduction429(mr.runs[m][0][0])
			x.mult = mults[m]
			cells[m] = x
		}
		p("Production, cost and cache (evaluation lanes, `(all)`; production summed over the seeds; cost and cache-read share the mean over the seeds; cache misses summed, by gateway wait / tool time):\n\n")
		p("| | %s |\n|---|%s\n", strings.Join(mapS(MeterPresets, meterLabel), " | "), strings.Repeat("---:|", len(MeterPresets)))
		line := func(name string, f func(x cell) string) {
			p("| %s |", name)
			for _, x := range cells {
				p(" %s |", f(x))
			}
			p("\n")
		}
		hasProd := len(mr.runs[0][0][0].Production) > 0
		if hasProd {
			line("production 429s, "+armName(c.old), func(x cell) string { return count(x.prodOld429) })
			line("production 429s, "+armName(c.new), func(x cell) string { return count(x.prodNew429) })
			line("production outage minutes, "+armName(c.old), func(x cell) string { return count(x.outOld) })
			line("production outage minutes, "+armName(c.new), func(x cell) string { return count(x.outNew) })
			clock := 0.0
			if q := mr.runs[0][0][0].Quota; q != nil {
				clock = q.Clock
			}
			line("first production 429, "+armName(c.old)+" (seed 1)", func(x cell) string {
				if x.crossOld < 0 {
					return "-"
				}
				return results.ClockTime(clock+60*float64(x.crossOld), false)
			})
		}
		line("$ per completed job, "+armName(c.old), func(x cell) string { return fmt.Sprintf("%.4f", x.costOld) })
		line("$ per completed job, "+armName(c.new), func(x cell) string { return fmt.Sprintf("%.4f", x.costNew) })
		line("cost per job, "+armName(c.new)+" ÷ "+armName(c.old), func(x cell) string {
			if x.costOld == 0 {
				return "-"
			}
			return fmt.Sprintf("%.2f×", results.Ratio(x.costNew, x.costOld))
		})
		line("cache-read share, "+armName(c.old), func(x cell) string { return fmt.Sprintf("%.1f%%", 100*x.cacheOld) })
		line("cache-read share, "+armName(c.new), func(x cell) string { return fmt.Sprintf("%.1f%%", 100*x.cacheNew) })
		line("cache misses, "+armName(c.old), func(x cell) string { return count(x.missGwOld) + " / " + count(x.missToolOld) })
		line("cache misses, "+armName(c.new), func(x cell) string { return count(x.missGw) + " / " + count(x.missTl) })
		p("\n")
		mr.cells = cells

		// What moved, against today's meter.
		today := cells[0]
		clock := 0.0
		if q := mr.runs[0][0][0].Quota; q != nil {
			clock = q.Clock
		}
		at := func(m int) string { return results.ClockTime(clock+60*float64(m), false) }
		for m := 1; m < len(MeterPresets); m++ {
			x := cells[m]
			var what []string
			if r := x.mult / today.mult; math.Abs(r-1) >= moveBy {
				what = append(what, fmt.Sprintf("the (all) multiplier %.2f× → %.2f×", today.mult, x.mult))
			}
			if hasProd && (x.prodOld429 != today.prodOld429 || x.prodNew429 != today.prodNew429) {
				what = append(what, fmt.Sprintf("production's 429s %s → %s under %s and %s → %s under %s", count(today.prodOld429), count(x.prodOld429), armName(c.old), count(today.prodNew429), count(x.prodNew429), armName(c.new)))
			}
			if hasProd && (x.outOld != today.outOld || x.outNew != today.outNew) {
				what = append(what, fmt.Sprintf("production's outage minutes %s → %s under %s and %s → %s under %s", count(today.outOld), count(x.outOld), armName(c.old), count(today.outNew), count(x.outNew), armName(c.new)))
			}
			if hasProd && x.crossOld != today.crossOld {
				switch {
				case x.crossOld < 0:
					what = append(what, fmt.Sprintf("production is never refused under %s (today's meter: first at %s)", armName(c.old), at(today.crossOld)))
				case today.crossOld < 0:
					what = append(what, fmt.Sprintf("production is first refused under %s at %s (today's meter: never)", armName(c.old), at(x.crossOld)))
				default:
					what = append(what, fmt.Sprintf("the first production 429 under %s moves from %s to %s", armName(c.old), at(today.crossOld), at(x.crossOld)))
				}
			}
			if today.costOld > 0 && x.costOld > 0 {
				if r := results.Ratio(x.costNew, x.costOld) / results.Ratio(today.costNew, today.costOld); math.Abs(r-1) >= moveBy {
					what = append(what, fmt.Sprintf("the cost-per-job ratio %.2f× → %.2f×", results.Ratio(today.costNew, today.costOld), results.Ratio(x.costNew, x.costOld)))
				}
			}
			moved[fmt.Sprintf("%s|%s", mr.sc.Name, MeterPresets[m])] = what
		}
	}

	p("## What the numbers say\n\n")
	for _, mr := range all {
		for m := 1; m < len(MeterPresets); m++ {
			what := moved[fmt.Sprintf("%s|%s", mr.sc.Name, MeterPresets[m])]
			if len(what) == 0 {
				prod := "production's 429s, outage minutes and first 429 not at all"
				if len(mr.runs[0][0][0].Production) == 0 {
					prod = "the scenario has no production traffic"
				}
				p("- %s, `%s` against today's meter: the (all) multiplier and the cost-per-job ratio move by less than %.0f%%, and %s; the cache-read share is %.1f%% / %.1f%% (none under today's meter).\n",
					mr.sc.Name, MeterPresets[m], 100*moveBy, prod, 100*mr.cells[m].cacheOld, 100*mr.cells[m].cacheNew)
				continue
			}
			p("- %s, `%s` against today's meter: %s; the cache-read share is %.1f%% / %.1f%%.\n", mr.sc.Name, MeterPresets[m], strings.Join(what, "; "), 100*mr.cells[m].cacheOld, 100*mr.cells[m].cacheNew)
		}
	}
	// The window presets against today's: the same quota figures everywhere
	// means their meter differs from today's only by the cache.
	same := true
	for _, mr := range all {
		for m, pr := range MeterPresets {
			if pr != "openai" && pr != "azure-openai" {
				continue
			}
			x, t := mr.cells[m], mr.cells[0]
			same = same && x.prodOld429 == t.prodOld429 && x.prodNew429 == t.prodNew429 && x.outOld == t.outOld && x.outNew == t.outNew &&
				x.crossOld == t.crossOld && math.Abs(x.mult/t.mult-1) < moveBy
		}
	}
	for _, mr := range all {
		if mr.sc.Name != "incident-0214" {
			continue
		}
		t, a := mr.cells[0], mr.cells[slices.Index(MeterPresets, "anthropic")]
		var fitOutage int64
		for _, pr := range fitControl.Production {
			fitOutage += pr.OutageMinutes
		}
		if a.outOld < t.outOld {
			p("\nOn the incident the `anthropic` preset changes two things: token buckets and, with them, `fit` admission in place of the scenario's `under_limit`. The control, today's meter with `fit` admission alone (the incident's `fit-admission` variant, seed 1), has %s outage minutes against %s on today's meter and %s under the preset", count(fitOutage), count(t.outOld), count(a.outOld))
			switch {
			case fitOutage == a.outOld:
				p(": the admission rule alone accounts for the change.\n")
			case t.outOld-fitOutage >= fitOutage-a.outOld:
				p(": the admission rule takes most of the outage away, the buckets the rest.\n")
			default:
				p(": the buckets take most of the outage away, the admission rule the rest.\n")
			}
		}
	}
	if same {
		p("\nThe `openai` and `azure-openai` presets move no quota figure here: they keep the rolling window, count input whole and count output at `max_tokens`, which these scenarios' behaviours do not set, so they meter as today's meter does and differ only by the prompt cache, which they bill but do not meter. What they would move needs behaviours that ask for `max_tokens` (as `openai-quota` does).\n")
	}
	return b.String()
}

func pick(r results.Run, lane string) results.Lane {
	if lane == results.AllLanes {
		return r.Total
	}
	return laneOf(r, lane)
}

func armName(a studyArm) string {
	if a.Variant != "" {
		return a.Variant
	}
	return a.Policy
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func mapS(xs []string, f func(string) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
