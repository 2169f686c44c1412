package lab

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/results"
)

// GateBaseline is a committed baseline file: each scenario's figures over
// its seeds, what they were measured on, and why it was last written.
type GateBaseline struct {
	Schema string `json:"schema"`
	// MetricsVersion is the MetricsVersion the figures were computed by.
	MetricsVersion int                `json:"metrics_version"`
	History        []BaselineUpdate   `json:"history"`
	Scenarios      []BaselineScenario `json:"scenarios"`
}

// BaselineSchema is the baseline file's schema name.
const BaselineSchema = "evalsched-gate-baseline"

// BaselineUpdate records one --update: the reason given and the date.
type BaselineUpdate struct {
	Reason string `json:"reason"`
	Date   string `json:"date"`
}

// BaselineScenario is one scenario's figures, pinned to what they were
// measured on: the point's Digest (scenario after overlays, policy) and
// the seeds.
type BaselineScenario struct {
	Name    string           `json:"name"`
	Digest  string           `json:"digest"`
	Seeds   []uint64         `json:"seeds"`
	Figures []BaselineFigure `json:"figures"`
}

// BaselineFigure is one figure over seeds: values in seed order, mean (as
// Aggregate: geometric for the multiplier) and its standard error.
type BaselineFigure struct {
	Lane   string    `json:"lane"`
	Metric string    `json:"metric"`
	Values []float64 `json:"values"`
	// Seeds are the seeds of the values when the run lacked the figure
	// on some of the scenario's seeds (absent: one value per seed).
	Seeds []uint64 `json:"seeds,omitempty"`
	Mean  float64  `json:"mean"`
	SE    float64  `json:"se"`
}

// StaleBaselineError says a baseline was not measured on what the gate
// runs now (another scenario, overlay, policy, seeds or metric
// definitions, or no baseline at all): no verdict can be given; rerun with
// --update --reason after checking the change is meant.
type StaleBaselineError struct {
	Baseline string
	Problems []string
}

func (e *StaleBaselineError) Error() string {
	return fmt.Sprintf("%s does not pin what the gate runs: %s; if the change is meant, rewrite it with sim gate --update --reason \"why\"",
		e.Baseline, strings.Join(e.Problems, "; "))
}

// CheckPinned refuses a baseline that was not measured on the gate's
// points, seeds and metric definitions, or lacks a figure a check reads.
func (g *Gate) CheckPinned(b GateBaseline, ok bool) error {
	e := &StaleBaselineError{Baseline: g.BaselinePath()}
	if !ok {
		e.Problems = append(e.Problems, "there is no baseline file")
		return e
	}
	if b.MetricsVersion != MetricsVersion {
		e.Problems = append(e.Problems, fmt.Sprintf("its figures were computed by metric definitions version %d, this lab's are version %d", b.MetricsVersion, MetricsVersion))
	}
	by := map[string]BaselineScenario{}
	for _, s := range b.Scenarios {
		by[s.Name] = s
	}
	for i, s := range g.Spec.Scenarios {
		bs, ok := by[s.Name]
		switch {
		case !ok:
			e.Problems = append(e.Problems, fmt.Sprintf("scenario %q has no baseline", s.Name))
			continue
		case bs.Digest == "":
			e.Problems = append(e.Problems, fmt.Sprintf("scenario %q: the baseline does not record what it ran (no digest)", s.Name))
		case bs.Digest != g.Digests[i]:
			e.Problems = append(e.Problems, fmt.Sprintf("scenario %q: measured on another scenario, overlay or policy (digest %s, now %s)", s.Name, bs.Digest, g.Digests[i]))
		}
		if !slices.Equal(bs.Seeds, s.Seeds) {
			e.Problems = append(e.Problems, fmt.Sprintf("scenario %q: measured on seeds %v, the gate runs %v", s.Name, bs.Seeds, s.Seeds))
		}
		delete(by, s.Name)
	}
	for _, s := range b.Scenarios {
		if _, left := by[s.Name]; left {
			e.Problems = append(e.Problems, fmt.Sprintf("it holds scenario %q, which the gate no longer runs", s.Name))
		}
	}
	if len(e.Problems) > 0 {
		return e
	}
	return nil
}

// Checked reports whether a check of the gate reads the figure k of the
// named scenario against its baseline.
func (g *Gate) Checked(scenario string, k MetricKey) bool {
	for _, c := range g.Spec.Checks {
		lanes := c.Lanes
		if len(lanes) == 0 {
			lanes = []string{AllLanes}
		}
		if c.Metric == k.Metric && slices.Contains(lanes, k.Lane) && (len(c.Scenarios) == 0 || slices.Contains(c.Scenarios, scenario)) {
			return true
		}
	}
	return false
}

// NewBaselineScenario packs the scenario's figures the gate checks.
func (g *Gate) NewBaselineScenario(name string, seeds []uint64, aggs []MetricAgg) BaselineScenario {
	b := BaselineScenario{Name: name, Seeds: seeds}
	if i := slices.Index(g.scenarioNames(), name); i >= 0 {
		b.Digest = g.Digests[i]
	}
	for _, a := range aggs {
		if !g.Checked(name, a.MetricKey) {
			continue
		}
		f := BaselineFigure{Lane: a.Lane, Metric: a.Metric, Values: a.Values, Mean: a.Mean, SE: a.SE}
		if len(a.Seeds) != len(seeds) {
			for _, k := range a.Seeds {
				f.Seeds = append(f.Seeds, seeds[k])
			}
		}
		b.Figures = append(b.Figures, f)
	}
	return b
}

// ReadBaseline reads a baseline file; ok is false if there is none. A
// baseline of another schema, a cut file and one holding a number that is
// not finite are refused.
func ReadBaseline(path string) (b GateBaseline, ok bool, err error) {
	err = results.ReadJSONFile(path, &b)
	if errors.Is(err, fs.ErrNotExist) {
		return b, false, nil
	}
	if err != nil {
		return b, false, err
	}
	if b.Schema != BaselineSchema {
		return b, false, &field.Error{File: path, Path: "schema", Msg: fmt.Sprintf("%q: not a gate baseline (want %q)", b.Schema, BaselineSchema)}
	}
	for i, s := range b.Scenarios {
		for j, f := range s.Figures {
			at := fmt.Sprintf("scenarios[%d].figures[%d]", i, j)
			want := len(s.Seeds)
			if f.Seeds != nil {
				want = len(f.Seeds)
				for _, seed := range f.Seeds {
					if !slices.Contains(s.Seeds, seed) {
						return b, false, &field.Error{File: path, Path: at + ".seeds", Msg: fmt.Sprintf("seed %d is not one of the scenario's %v", seed, s.Seeds)}
					}
				}
			}
			if len(f.Values) != want {
				return b, false, &field.Error{File: path, Path: at + ".values", Msg: fmt.Sprintf("%d values for %d seeds", len(f.Values), want)}
			}
			for _, v := range append([]float64{f.Mean, f.SE}, f.Values...) {
				if !finite(v) {
					return b, false, &field.Error{File: path, Path: at, Msg: fmt.Sprintf("%g is not a finite number", v)}
				}
			}
		}
	}
	return b, true, nil
}

// WriteBaseline writes a baseline file, keeping the previous history and
// adding this update.
func WriteBaseline(path string, scenarios []BaselineScenario, upd BaselineUpdate) error {
	old, _, err := ReadBaseline(path)
	if err != nil {
		return err
	}
	b := GateBaseline{Schema: BaselineSchema, MetricsVersion: MetricsVersion, History: append(old.History, upd), Scenarios: scenarios}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return results.WriteJSON(path, b)
}

func (b GateBaseline) figure(scenario, lane, metric string) (BaselineFigure, bool) {
	for _, s := range b.Scenarios {
		if s.Name != scenario {
			continue
		}
		for _, f := range s.Figures {
			if f.Lane == lane && f.Metric == metric {
				return f, true
			}
		}
	}
	return BaselineFigure{}, false
}

// Margin is the tolerance's allowed move of the mean from a baseline
// figure (its spread part).
func (t Tolerance) Margin(f BaselineFigure) float64 {
	return max(t.Relative*math.Abs(f.Mean), t.Absolute, t.KSE*f.SE)
}

// bySeed maps each seed of the scenario (seeds) to the figure's value.
func (f BaselineFigure) bySeed(seeds []uint64) map[uint64]float64 {
	out := map[uint64]float64{}
	for k, v := range f.Values {
		if f.Seeds != nil {
			out[f.Seeds[k]] = v
		} else if k < len(seeds) {
			out[seeds[k]] = v
		}
	}
	return out
}

// PairedMargin is the tolerance's allowed move of one seed's value from
// that seed's baseline value v.
func (t Tolerance) PairedMargin(v float64) float64 { return *t.Paired * math.Abs(v) }

// BaselineChange is one figure of a baseline rewritten by --update: its
// mean before (absent: new) and after (absent: gone).
type BaselineChange struct {
	Scenario, Lane, Metric string
	Old, New               *float64
}

// BaselineChanges lists every figure of the baseline before (old) and
// after (scenarios), in the new baseline's order, then the figures only
// the old one had.
func BaselineChanges(old GateBaseline, scenarios []BaselineScenario) []BaselineChange {
	var out []BaselineChange
	seen := map[[3]string]bool{}
	for _, s := range scenarios {
		for _, f := range s.Figures {
			ch := BaselineChange{Scenario: s.Name, Lane: f.Lane, Metric: f.Metric, New: &f.Mean}
			if o, ok := old.figure(s.Name, f.Lane, f.Metric); ok {
				ch.Old = &o.Mean
			}
			seen[[3]string{s.Name, f.Lane, f.Metric}] = true
			out = append(out, ch)
		}
	}
	for _, s := range old.Scenarios {
		for _, f := range s.Figures {
			if !seen[[3]string{s.Name, f.Lane, f.Metric}] {
				out = append(out, BaselineChange{Scenario: s.Name, Lane: f.Lane, Metric: f.Metric, Old: &f.Mean})
			}
		}
	}
	return out
}

// Change is the figure's move: relative to |old| as a signed percentage,
// or, from 0, the difference; "new" or "gone" for a figure on one side
// only.
func (c BaselineChange) Change() string {
	switch {
	case c.Old == nil:
		return "new"
	case c.New == nil:
		return "gone"
	case *c.Old == 0:
		return fmt.Sprintf("%+.4g", *c.New-*c.Old)
	}
	ch := 100 * (*c.New - *c.Old) / math.Abs(*c.Old)
	if s := fmt.Sprintf("%+.1f%%", ch); ch == 0 || (s != "+0.0%" && s != "-0.0%") {
		return s
	}
	return fmt.Sprintf("%+.2g%%", ch) // a move too small for one decimal is still not none
}

// WriteBaselineChanges prints what --update did to the baseline: each
// figure's old and new mean and the change.
func WriteBaselineChanges(w io.Writer, path string, changes []BaselineChange) error {
	moved := 0
	for _, c := range changes {
		if c.Old == nil || c.New == nil || *c.Old != *c.New {
			moved++
		}
	}
	if _, err := fmt.Fprintf(w, "baseline %s rewritten: %d of %d figures moved\n", path, moved, len(changes)); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tlane\tmetric\told\tnew\tchange")
	opt := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf("%.4g", *p)
	}
	for _, c := range changes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.Scenario, c.Lane, c.Metric, opt(c.Old), opt(c.New), c.Change())
	}
	return tw.Flush()
}
