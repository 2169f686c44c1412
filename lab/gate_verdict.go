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
)

// GateVerdict is verdict.json: every checked figure and the outcome.
type GateVerdict struct {
	Schema      string    `json:"schema"`
	Gate        string    `json:"gate"`
	Pass        bool      `json:"pass"`
	Regressions int       `json:"regressions"`
	Missing     int       `json:"missing_baselines"`
	Rows        []GateRow `json:"rows"`
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
	Now       float64  `json:"now"`
	Change    *float64 `json:"change,omitempty"` // (now − baseline) ÷ |baseline|
	Tolerance string   `json:"tolerance"`
	Limit     *float64 `json:"limit,omitempty"`
	Verdict   string   `json:"verdict"`
}

// Judge checks every figure the gate names: now holds each scenario's
// aggregated figures (by scenario name).
func (g *Gate) Judge(base GateBaseline, now map[string][]MetricAgg) GateVerdict {
	v := GateVerdict{Schema: "evalsched-gate-verdict", Gate: g.File, Pass: true}
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
				row := judgeRow(c, s.Name, lane, base, now[s.Name])
				switch row.Verdict {
				case VerdictRegression:
					v.Regressions++
				case VerdictNoBaseline:
					v.Missing++
				}
				v.Rows = append(v.Rows, row)
			}
		}
	}
	v.Pass = v.Regressions == 0 && v.Missing == 0
	return v
}

func judgeRow(c GateCheck, scenario, lane string, base GateBaseline, now []MetricAgg) GateRow {
	tol, bound, sign := c.Floor, "floor", -1.0
	if c.Ceiling != nil {
		tol, bound, sign = c.Ceiling, "ceiling", 1.0
	}
	row := GateRow{Scenario: scenario, Lane: lane, Metric: c.Metric, Bound: bound, Tolerance: tol.String()}
	for _, a := range now {
		if a.Lane == lane && a.Metric == c.Metric {
			row.Now = a.Mean
		}
	}
	var limit float64
	if tol.Threshold != nil {
		limit = *tol.Threshold
	} else {
		f, ok := base.figure(scenario, lane, c.Metric)
		if !ok {
			row.Verdict = VerdictNoBaseline
			return row
		}
		row.Baseline = &f.Mean
		if f.Mean != 0 {
			ch := (row.Now - f.Mean) / math.Abs(f.Mean)
			row.Change = &ch
		}
		limit = f.Mean + sign*tol.Margin(f)
	}
	row.Limit = &limit
	row.Verdict = VerdictOK
	if sign*(row.Now-limit) > 0 {
		row.Verdict = VerdictRegression
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
	if s == "" {
		return "exact"
	}
	return s
}

// WriteGateTable prints the diff table: baseline, now, change, tolerance,
// limit and verdict per checked figure, then the outcome.
func WriteGateTable(w io.Writer, v GateVerdict) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tlane\tmetric\tbaseline\tnow\tchange\ttolerance\tlimit\tverdict")
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.4g\t%s\t%s %s\t%s\t%s\n", r.Scenario, r.Lane, r.Metric, opt(r.Baseline, "%.4g"), r.Now,
			change, r.Bound, r.Tolerance, opt(r.Limit, "%.4g"), r.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	outcome := "PASS"
	if !v.Pass {
		outcome = fmt.Sprintf("FAIL: %d regressions, %d figures without a baseline", v.Regressions, v.Missing)
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
