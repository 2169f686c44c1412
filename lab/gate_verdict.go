package lab

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"

	"github.com/evalsched/lab/results"
)

// Verdicts of a gate row.
const (
	VerdictOK         = "ok"
	VerdictRegression = "REGRESSION"
	VerdictNoBaseline = "NO BASELINE"
	// VerdictNoFigure: the run gave no such figure (a multiplier over a
	// near-empty baseline lane, a lane without jobs).
	VerdictNoFigure = "NO FIGURE"
)

// GateOutcome is how a gate ended.
type GateOutcome string

// Outcomes of a gate: every figure ok, some not, or no verdict at all (the
// gate stopped before judging: a stale baseline, a refused file or flag, a
// failed run).
const (
	OutcomePass      GateOutcome = "pass"
	OutcomeFail      GateOutcome = "fail"
	OutcomeNoVerdict GateOutcome = "no verdict"
)

// GateVerdict is verdict.json: every checked figure and the outcome.
type GateVerdict struct {
	Schema  string      `json:"schema"`
	Gate    string      `json:"gate"`
	Outcome GateOutcome `json:"outcome"`
	// Reason says why there is no verdict (OutcomeNoVerdict only).
	Reason      string    `json:"reason,omitempty"`
	Pass        bool      `json:"pass"`
	Regressions int       `json:"regressions"`
	Missing     int       `json:"missing_baselines"`
	Rows        []GateRow `json:"rows"`
}

// VerdictSchema is verdict.json's schema name.
const VerdictSchema = "evalsched-gate-verdict"

// NoVerdict is what a gate that stopped before judging writes in place of
// a verdict: not a pass, no rows, and why (the error it stopped on).
func NoVerdict(gate string, why error) GateVerdict {
	return GateVerdict{Schema: VerdictSchema, Gate: gate, Outcome: OutcomeNoVerdict, Reason: why.Error(), Rows: []GateRow{}}
}

// GateRow is one figure checked: its baseline mean (absent for a fixed
// threshold), the mean now over the same seeds, the change, the limit it
// must stay on the right side of, and the verdict.
type GateRow struct {
	Scenario  string   `json:"scenario"`
	Lane      string   `json:"lane"`
	Metric    string   `json:"metric"`
	Bound     string   `json:"bound"` // floor or ceiling
	Baseline  *float64 `json:"baseline,omitempty"`
	Now       *float64 `json:"now"`              // null on a NO FIGURE row: not measured
	Change    *float64 `json:"change,omitempty"` // (now − baseline) ÷ |baseline|
	Tolerance string   `json:"tolerance"`
	Limit     *float64 `json:"limit,omitempty"`
	// With a paired tolerance: the seed whose value moved most towards the
	// bound against its own baseline value, that move (a fraction), and
	// the seeds past their paired limit.
	WorstSeed       *uint64  `json:"worst_seed,omitempty"`
	WorstSeedChange *float64 `json:"worst_seed_change,omitempty"`
	SeedRegressions []uint64 `json:"seed_regressions,omitempty"`
	Verdict         string   `json:"verdict"`
}

// Judge checks every figure the gate names: now holds each scenario's
// aggregated figures (by scenario name).
func (g *Gate) Judge(base GateBaseline, now map[string][]MetricAgg) GateVerdict {
	v := GateVerdict{Schema: VerdictSchema, Gate: g.File, Rows: []GateRow{}}
	for _, c := range g.Spec.Checks {
		lanes := c.Lanes
		if len(lanes) == 0 {
			lanes = []string{AllLanes}
		}
		for _, s := range g.Spec.Scenarios {
			if len(c.Scenarios) > 0 && !slices.Contains(c.Scenarios, s.Name) {
				continue
			}
			for _, lane := range lanes {
				row := judgeRow(c, s, lane, base, now[s.Name])
				switch row.Verdict {
				case VerdictRegression:
					v.Regressions++
				case VerdictNoBaseline, VerdictNoFigure:
					v.Missing++
				}
				v.Rows = append(v.Rows, row)
			}
		}
	}
	v.Pass = v.Regressions == 0 && v.Missing == 0
	v.Outcome = OutcomeFail
	if v.Pass {
		v.Outcome = OutcomePass
	}
	return v
}

func judgeRow(c GateCheck, sc GateScenario, lane string, base GateBaseline, now []MetricAgg) GateRow {
	tol, bound, sign := c.Floor, "floor", -1.0
	if c.Ceiling != nil {
		tol, bound, sign = c.Ceiling, "ceiling", 1.0
	}
	row := GateRow{Scenario: sc.Name, Lane: lane, Metric: c.Metric, Bound: bound, Tolerance: tol.String()}
	var cur *MetricAgg
	for i, a := range now {
		if a.Lane == lane && a.Metric == c.Metric {
			cur = &now[i]
		}
	}
	if cur == nil {
		row.Verdict = VerdictNoFigure
		return row
	}
	mean := cur.Mean
	row.Now = &mean
	row.Verdict = VerdictOK
	if tol.Kind() == TolThreshold {
		limit := *tol.Threshold
		row.Limit = &limit
		if sign*(mean-limit) > 0 {
			row.Verdict = VerdictRegression
		}
		return row
	}
	f, ok := base.figure(sc.Name, lane, c.Metric)
	if !ok {
		row.Verdict = VerdictNoBaseline
		return row
	}
	row.Baseline = &f.Mean
	if f.Mean != 0 {
		ch := (mean - f.Mean) / math.Abs(f.Mean)
		row.Change = &ch
	}
	if tol.Kind() == TolSpread {
		limit := f.Mean + sign*tol.Margin(f)
		row.Limit = &limit
		if sign*(mean-limit) > 0 {
			row.Verdict = VerdictRegression
		}
	}
	if tol.Paired != nil {
		was := f.bySeed(sc.Seeds)
		is := map[uint64]float64{}
		for j, v := range cur.Values {
			is[sc.Seeds[cur.Seeds[j]]] = v
		}
		worst := math.Inf(-1)
		for _, seed := range sc.Seeds {
			b, had := was[seed]
			v, has := is[seed]
			if !had {
				continue
			}
			if !has { // the figure is gone on this seed
				row.SeedRegressions = append(row.SeedRegressions, seed)
				continue
			}
			move := sign * (v - b) // > 0: towards the bound
			if move > tol.PairedMargin(b) {
				row.SeedRegressions = append(row.SeedRegressions, seed)
			}
			rel := move
			if b != 0 {
				rel = move / math.Abs(b)
			}
			if rel > worst {
				s, ch := seed, sign*rel
				worst, row.WorstSeed, row.WorstSeedChange = rel, &s, &ch
			}
		}
		if len(row.SeedRegressions) > 0 {
			row.Verdict = VerdictRegression
		}
	}
	return row
}

func (t Tolerance) String() string {
	if t.Threshold != nil {
		return fmt.Sprintf("fixed %g", *t.Threshold)
	}
	s := ""
	add := func(part string) {
		if s != "" {
			s += " | "
		}
		s += part
	}
	if t.Relative > 0 {
		add(fmt.Sprintf("%g%%", 100*t.Relative))
	}
	if t.Absolute > 0 {
		add(fmt.Sprintf("±%g", t.Absolute))
	}
	if t.KSE > 0 {
		add(fmt.Sprintf("%g SE", t.KSE))
	}
	if t.Paired != nil {
		s := fmt.Sprintf("%g%% per seed", 100**t.Paired)
		if *t.Paired == 0 {
			s = "exact per seed"
		}
		if t.Kind() == TolPaired {
			return s
		}
		return "(" + cmpOr(t) + ") & " + s
	}
	if s == "" {
		return "exact"
	}
	return s
}

// cmpOr is the spread part of a tolerance as String writes it.
func cmpOr(t Tolerance) string {
	t.Paired = nil
	return t.String()
}

// nowText is the figure now as the tables print it; none on a NO FIGURE
// row (not measured, not a 0).
func (r GateRow) nowText(none string) string {
	if r.Now == nil {
		return none
	}
	return fmt.Sprintf("%.4g", *r.Now)
}

// WriteGateTable prints the diff table: baseline, now, change, tolerance,
// limit and verdict per checked figure, then the outcome.
func WriteGateTable(w io.Writer, v GateVerdict) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tlane\tmetric\tbaseline\tnow\tchange\tworst seed\ttolerance\tlimit\tverdict")
	opt := func(p *float64, f string) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf(f, *p)
	}
	for _, r := range v.Rows {
		change := "-"
		if r.Change != nil {
			change = fmt.Sprintf("%+.1f%%", 100**r.Change)
		}
		worst := "-"
		if r.WorstSeed != nil {
			worst = fmt.Sprintf("%+.1f%% (seed %d)", 100**r.WorstSeedChange, *r.WorstSeed)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s %s\t%s\t%s\n", r.Scenario, r.Lane, r.Metric, opt(r.Baseline, "%.4g"), r.nowText("-"),
			change, worst, r.Bound, r.Tolerance, opt(r.Limit, "%.4g"), r.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return WriteGateOutcome(w, v)
}

// WriteGateOutcome prints the gate's outcome line.
func WriteGateOutcome(w io.Writer, v GateVerdict) error {
	outcome := "PASS"
	switch {
	case v.Outcome == OutcomeNoVerdict:
		outcome = "NO VERDICT: " + v.Reason
	case !v.Pass:
		outcome = fmt.Sprintf("FAIL: %d regressions, %d figures missing (no baseline, or not in the run)", v.Regressions, v.Missing)
	}
	_, err := fmt.Fprintf(w, "gate %s: %s\n", v.Gate, outcome)
	return err
}

// WriteVerdictFile writes DIR/verdict.json and returns its bytes.
func WriteVerdictFile(dir string, v GateVerdict) ([]byte, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := results.WriteJSON(filepath.Join(dir, "verdict.json"), v); err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(dir, "verdict.json"))
}
