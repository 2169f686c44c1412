package results

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// A headline is the verdict a command and a report open with: what changed
// and by how much, for the evaluation lanes and for grading (the judge
// models) apart, with the interval over seeds when there are several; and
// how many small batches finished under each run. sim run and sim compare
// write it to headline.json beside summary.json.

// HeadlineFile is the headline's file in an output directory.
const HeadlineFile = "headline.json"

// Headline is headline.json.
type Headline struct {
	Schema   string   `json:"schema"` // "evalsched-headline"
	Scenario string   `json:"scenario"`
	Seed     uint64   `json:"seed"`
	Seeds    []uint64 `json:"seeds,omitempty"` // with more than one seed
	// GradingModels are the lanes any run marks as grading (the judges'
	// models, or a lane a grading job arrived on), in order of first
	// appearance; each run's own are in its runs[] entry.
	GradingModels []string `json:"grading_models"`
	// Runs is each run's figures on the first seed.
	Runs []HeadlineRun `json:"runs"`
	// Pairs is each run after the first against the first (compare).
	Pairs []HeadlinePair `json:"pairs,omitempty"`
	// Sentences are the verdict as text, in order.
	Sentences []string `json:"sentences"`
}

// HeadlineRun is one run's throughput by lane group and its small batches.
type HeadlineRun struct {
	Policy            string  `json:"policy"`
	EvaluationPerHour float64 `json:"evaluation_per_hour"`
	GradingPerHour    float64 `json:"grading_per_hour"`
	// GradingModels are the lanes this run marks as grading.
	GradingModels []string `json:"grading_models,omitempty"`
	SmallBatches  int      `json:"small_batches"`
	SmallFinished int      `json:"small_batches_finished"`
	// Production is whether the run replayed production traffic, and
	// OutageMinutes its production streams' outage minutes (whole run;
	// always written: 0 is a figure, not a missing one).
	Production    bool  `json:"production,omitempty"`
	OutageMinutes int64 `json:"production_outage_minutes"`
}

// HeadlinePair is one run against the baseline by lane group.
type HeadlinePair struct {
	Baseline   string          `json:"baseline"`
	Variant    string          `json:"variant"`
	Evaluation HeadlineFigure  `json:"evaluation"`
	Grading    *HeadlineFigure `json:"grading,omitempty"` // none without grading lanes
	// All is the table's "(all)" row: the evaluation lanes, so always
	// equal to Evaluation (kept for readers of the field).
	All HeadlineFigure `json:"all"`
}

// HeadlineFigure is one lane group's throughput, old and new, on the
// first seed; its multiplier there (absent when the baseline completed
// fewer than MinRatioCompleted jobs, as in the tables: NearZero); and over
// several seeds the geometric mean and 95% interval of the per-seed
// multipliers, near-zero seeds left out and counted.
type HeadlineFigure struct {
	OldPerHour    float64    `json:"old_per_hour"`
	NewPerHour    float64    `json:"new_per_hour"`
	OldCompleted  int64      `json:"old_completed"`
	Multiplier    *float64   `json:"multiplier,omitempty"`
	NearZero      bool       `json:"near_zero,omitempty"`
	AcrossSeeds   *RatioStat `json:"across_seeds,omitempty"`
	NearZeroSeeds int        `json:"near_zero_seeds,omitempty"`
}

// laneGroup is one of a run's rows: the evaluation lanes (the table's
// "(all)" row, Run.Total) or the grading lanes ("(grading)", Run.Grading).
// Each run classifies its own lanes (Lane.Grading, from the scenario the run
// was: a variant may add a judge its baseline lacks), and the headline reads
// that classification instead of making its own.
type laneGroup int

const (
	groupEvaluation laneGroup = iota
	groupGrading
)

func groupSum(r Run, g laneGroup) (perHour float64, completed int64) {
	if g == groupGrading {
		if r.Grading == nil {
			return 0, 0
		}
		return r.Grading.ThroughputPerHour, r.Grading.Completed
	}
	return r.Total.ThroughputPerHour, r.Total.Completed
}

// gradingModels are the lanes run marks as grading, in its lanes' order.
func gradingModels(r Run) []string {
	var out []string
	for _, l := range r.Lanes {
		if l.Grading {
			out = append(out, l.Model)
		}
	}
	return out
}

// NewHeadline reads the runs of one command, seed by seed (runsBySeed[k]
// holds the runs of seed first+k, the baseline first; one seed for sim
// run). The lanes each run marks as grading are its grading; the rest are
// its evaluation lanes, as in the run's "(all)" and "(grading)" rows.
func NewHeadline(scenario string, first uint64, runsBySeed [][]Run) Headline {
	h := Headline{Schema: "evalsched-headline", Scenario: scenario, Seed: first, GradingModels: []string{}}
	runs := runsBySeed[0]
	if len(runsBySeed) > 1 {
		for k := range runsBySeed {
			h.Seeds = append(h.Seeds, first+uint64(k))
		}
	}
	for _, seedRuns := range runsBySeed {
		for _, r := range seedRuns {
			for _, m := range gradingModels(r) {
				if !slices.Contains(h.GradingModels, m) {
					h.GradingModels = append(h.GradingModels, m)
				}
			}
		}
	}
	for _, r := range runs {
		ev, _ := groupSum(r, groupEvaluation)
		gr, _ := groupSum(r, groupGrading)
		f := r.Fairness
		hr := HeadlineRun{Policy: r.Policy, EvaluationPerHour: ev, GradingPerHour: gr, GradingModels: gradingModels(r),
			SmallBatches: f.SmallBatches, SmallFinished: f.SmallBatches - f.SmallUnfinished, Production: len(r.Production) > 0}
		for _, p := range r.Production {
			hr.OutageMinutes += p.OutageMinutes
		}
		h.Runs = append(h.Runs, hr)
	}
	for i := 1; i < len(runs); i++ {
		ev := headlineFigure(runsBySeed, i, groupEvaluation)
		p := HeadlinePair{Baseline: runs[0].Policy, Variant: runs[i].Policy, Evaluation: ev, All: ev}
		// A grading figure where the pair has grading lanes, as its table
		// has a "(grading)" row.
		hasGrading := false
		for _, seedRuns := range runsBySeed {
			hasGrading = hasGrading || seedRuns[0].Grading != nil || seedRuns[i].Grading != nil
		}
		if hasGrading {
			g := headlineFigure(runsBySeed, i, groupGrading)
			p.Grading = &g
		}
		h.Pairs = append(h.Pairs, p)
	}
	h.Sentences = h.sentences()
	return h
}

func headlineFigure(runsBySeed [][]Run, arm int, g laneGroup) HeadlineFigure {
	var f HeadlineFigure
	var ratios []float64
	for k, runs := range runsBySeed {
		oldH, oldN := groupSum(runs[0], g)
		newH, newN := groupSum(runs[arm], g)
		ratio, near := seedRatio(LaneComparison{OldPerHour: oldH, NewPerHour: newH, OldCompleted: oldN, NewCompleted: newN})
		if k == 0 {
			// The first seed's ratio is printed as the tables print it.
			f.OldPerHour, f.NewPerHour, f.OldCompleted, f.NearZero = oldH, newH, oldN, near || !RatioShown(oldN)
			if !f.NearZero {
				m := newH / oldH
				if newN == 0 || newH <= 0 {
					m = 0
				}
				f.Multiplier = &m
			}
		}
		if near {
			f.NearZeroSeeds++
		} else {
			ratios = append(ratios, ratio)
		}
	}
	if len(runsBySeed) > 1 {
		s := newRatioStat(ratios)
		f.AcrossSeeds = &s
	}
	return f
}

// sentences: per pair, one sentence on the evaluation lanes and grading;
// then one on the small batches finished per run. A single run says its
// throughput by group.
func (h Headline) sentences() []string {
	var out []string
	seedText := fmt.Sprintf("seed %d", h.Seed)
	if len(h.Seeds) > 1 {
		seedText = fmt.Sprintf("%d seeds, %d..%d", len(h.Seeds), h.Seeds[0], h.Seeds[len(h.Seeds)-1])
	}
	grading := "grading"
	if len(h.GradingModels) > 0 { // none when no grading lane had a job
		grading += " (" + strings.Join(h.GradingModels, ", ") + ")"
	}
	if len(h.Pairs) == 0 && len(h.Runs) == 1 {
		r := h.Runs[0]
		s := fmt.Sprintf("%s on %s (%s): the evaluation lanes completed %s jobs/h", r.Policy, h.Scenario, seedText, PerHourText(r.EvaluationPerHour))
		if len(h.GradingModels) > 0 {
			s += fmt.Sprintf(", %s %s jobs/h", grading, PerHourText(r.GradingPerHour))
		}
		out = append(out, s+".")
	}
	switch {
	case len(h.Pairs) == 1:
		p := h.Pairs[0]
		s := fmt.Sprintf("%s against %s on %s (%s): the evaluation lanes %s", p.Variant, p.Baseline, h.Scenario, seedText, p.Evaluation.Text(h.Seed))
		if p.Grading != nil {
			s += "; " + grading + " " + p.Grading.Text(h.Seed)
		}
		out = append(out, s+".")
	case len(h.Pairs) > 1:
		// Many variants: one list per lane group, each variant's figure
		// against the same baseline.
		var ev, gr []string
		for _, p := range h.Pairs {
			ev = append(ev, p.Variant+" "+p.Evaluation.Text(h.Seed))
			if p.Grading != nil {
				gr = append(gr, p.Variant+" "+p.Grading.Text(h.Seed))
			}
		}
		s := fmt.Sprintf("Against %s on %s (%s), the evaluation lanes: %s", h.Pairs[0].Baseline, h.Scenario, seedText, strings.Join(ev, "; "))
		if len(gr) > 0 {
			s += ". " + strings.ToUpper(grading[:1]) + grading[1:] + ": " + strings.Join(gr, "; ")
		}
		out = append(out, s+".")
	}
	var prod, small []string
	for _, r := range h.Runs {
		if r.Production {
			prod = append(prod, fmt.Sprintf("%s %d", r.Policy, r.OutageMinutes))
		}
		if r.SmallBatches > 0 {
			small = append(small, fmt.Sprintf("%s %d of %d", r.Policy, r.SmallFinished, r.SmallBatches))
		}
	}
	if len(prod) > 0 {
		out = append(out, "Production outage minutes (whole run): "+strings.Join(prod, ", ")+".")
	}
	if len(small) > 0 {
		out = append(out, fmt.Sprintf("Small batches finished (seed %d): %s.", h.Seed, strings.Join(small, ", ")))
	}
	return out
}

// Text says how the figure changed: over several seeds the geometric mean
// and interval first, then the first seed, e.g. "took 1.70× [0.76×, 3.90×]
// the throughput over 3 seeds (seed 4: 1.53×, 6,097 → 9,344 jobs/h)"; on one
// seed "took 6.12× the throughput (2,806 → 17,159 jobs/h)"; and where the
// baseline completed near zero, that instead of a ratio.
func (f HeadlineFigure) Text(seed uint64) string {
	flow := fmt.Sprintf("%s → %s jobs/h", PerHourText(f.OldPerHour), PerHourText(f.NewPerHour))
	first := flow
	if !f.NearZero {
		first = TimesText(*f.Multiplier) + ", " + flow
	}
	a := f.AcrossSeeds
	switch {
	case a == nil && f.NearZero:
		return fmt.Sprintf("went %s (the baseline completed %d jobs in the window: too few for a ratio)", flow, f.OldCompleted)
	case a == nil:
		return fmt.Sprintf("took %s the throughput (%s)", TimesText(*f.Multiplier), flow)
	}
	var s string
	switch {
	case a.Seeds == 0:
		s = fmt.Sprintf("had a near-zero baseline on every seed (fewer than %d jobs: no ratio; seed %d: %s)", NearZeroCompleted, seed, flow)
	case a.Low != nil && a.High != nil:
		s = fmt.Sprintf("took %s [%s, %s] the throughput over %d seeds (seed %d: %s)", TimesText(a.Mean), TimesText(*a.Low), TimesText(*a.High), a.Seeds, seed, first)
	default:
		s = fmt.Sprintf("took %s the throughput on the one seed with a baseline (seed %d: %s)", TimesText(a.Mean), seed, first)
	}
	if f.NearZeroSeeds > 0 && a.Seeds > 0 {
		s += fmt.Sprintf(", %d near-zero seeds left out", f.NearZeroSeeds)
	}
	return s
}

// TimesText is a multiplier as text, to two decimals as the tables print
// it (MultiplierText): "1.05×", "0.84×", "15.30×". One decimal read
// 145.7 / 139.3 jobs/h (+4.6%) as "1.0×" beside the table's 1.05x.
func TimesText(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return fmt.Sprintf("%.2f×", x)
}

// PerHourText is a rate with thousands separated by commas.
func PerHourText(x float64) string {
	n := int64(math.Round(x))
	neg := n < 0
	if neg {
		n = -n
	}
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
