package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evalsched/lab/results"
	"go.yaml.in/yaml/v3"
)

// GateFile is a gate file (README "Gate file"): scenarios run on fixed
// seeds, and checks of their figures against committed baselines.
type GateFile struct {
	Baseline  string         `yaml:"baseline"`
	Scenarios []GateScenario `yaml:"scenarios"`
	Checks    []GateCheck    `yaml:"checks"`
}

// GateScenario is one configuration the gate runs.
type GateScenario struct {
	Name     string    `yaml:"name"`
	Scenario string    `yaml:"scenario"`
	Policy   string    `yaml:"policy"`
	Variant  string    `yaml:"variant"`
	Overlay  yaml.Node `yaml:"overlay"`
	Seeds    []uint64  `yaml:"seeds"`
}

// GateCheck is one check: a metric on lanes of some scenarios (all when
// none are named), with a floor (the figure must not fall below) or a
// ceiling (must not rise above).
type GateCheck struct {
	Metric    string     `yaml:"metric"`
	Lanes     []string   `yaml:"lanes"`
	Scenarios []string   `yaml:"scenarios"`
	Floor     *Tolerance `yaml:"floor"`
	Ceiling   *Tolerance `yaml:"ceiling"`
}

// Tolerance is how far a figure may move from its baseline mean: the
// largest of relative × |baseline|, absolute, and k_se standard errors of
// the baseline's mean over its seeds; or a fixed threshold (no baseline).
type Tolerance struct {
	Relative  float64  `yaml:"relative" json:"relative,omitempty"`
	Absolute  float64  `yaml:"absolute" json:"absolute,omitempty"`
	KSE       float64  `yaml:"k_se" json:"k_se,omitempty"`
	Threshold *float64 `yaml:"threshold" json:"threshold,omitempty"`
}

// Gate is a loaded gate file.
type Gate struct {
	File   string
	Spec   GateFile
	Points []PointSpec // one per scenario, ID = its name
}

// LoadGate reads and checks a gate file.
func LoadGate(path string) (*Gate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	g := &Gate{File: path}
	if err := decodeStrict(path, data, &g.Spec); err != nil {
		return nil, err
	}
	if g.Spec.Baseline == "" {
		return nil, fmt.Errorf("%s: baseline: name the baseline file (e.g. results/baselines/NAME.json)", path)
	}
	if len(g.Spec.Scenarios) == 0 || len(g.Spec.Checks) == 0 {
		return nil, fmt.Errorf("%s: a gate needs scenarios and checks", path)
	}
	multiplier := false
	for i, c := range g.Spec.Checks {
		if !slices.Contains(MetricNames, c.Metric) {
			return nil, fmt.Errorf("%s: checks[%d].metric: unknown %q (have %s)", at(path, data, fmt.Sprintf("checks[%d].metric", i)), i, c.Metric, strings.Join(MetricNames, ", "))
		}
		if (c.Floor == nil) == (c.Ceiling == nil) {
			return nil, fmt.Errorf("%s: checks[%d]: give exactly one of floor and ceiling", at(path, data, fmt.Sprintf("checks[%d]", i)), i)
		}
		multiplier = multiplier || NeedsBaseline(c.Metric)
	}
	seen := map[string]bool{}
	for i, s := range g.Spec.Scenarios {
		if s.Name == "" || seen[s.Name] || len(s.Seeds) == 0 {
			return nil, fmt.Errorf("%s: scenarios[%d]: needs a unique name and seeds", at(path, data, fmt.Sprintf("scenarios[%d]", i)), i)
		}
		seen[s.Name] = true
		p := PointSpec{ID: s.Name, Name: s.Name, Scenario: ResolveScenario(path, s.Scenario), Policy: s.Policy, Variant: s.Variant, Baseline: multiplier}
		if s.Overlay.Kind == yaml.MappingNode {
			p.Overlay = &s.Overlay
		}
		g.Points = append(g.Points, p)
	}
	return g, nil
}

// BaselinePath is the baseline file (relative to the gate file).
func (g *Gate) BaselinePath() string {
	if filepath.IsAbs(g.Spec.Baseline) {
		return g.Spec.Baseline
	}
	return filepath.Join(filepath.Dir(g.File), g.Spec.Baseline)
}

// GateBaseline is a committed baseline file: each scenario's figures over
// its seeds, and why it was last written.
type GateBaseline struct {
	Schema    string             `json:"schema"`
	History   []BaselineUpdate   `json:"history"`
	Scenarios []BaselineScenario `json:"scenarios"`
}

// BaselineUpdate records one --update: the reason given and the date.
type BaselineUpdate struct {
	Reason string `json:"reason"`
	Date   string `json:"date"`
}

// BaselineScenario is one scenario's figures.
type BaselineScenario struct {
	Name    string           `json:"name"`
	Seeds   []uint64         `json:"seeds"`
	Figures []BaselineFigure `json:"figures"`
}

// BaselineFigure is one figure over seeds: values in seed order, mean (as
// Aggregate: geometric for the multiplier) and its standard error.
type BaselineFigure struct {
	Lane   string    `json:"lane"`
	Metric string    `json:"metric"`
	Values []float64 `json:"values"`
	Mean   float64   `json:"mean"`
	SE     float64   `json:"se"`
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
	for _, a := range aggs {
		if !g.Checked(name, a.MetricKey) {
			continue
		}
		b.Figures = append(b.Figures, BaselineFigure{Lane: a.Lane, Metric: a.Metric, Values: a.Values, Mean: a.Mean, SE: a.SE})
	}
	return b
}

// ReadBaseline reads a baseline file; ok is false if there is none.
func ReadBaseline(path string) (b GateBaseline, ok bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return b, false, nil
	}
	if err == nil {
		err = json.Unmarshal(data, &b)
	}
	return b, err == nil, err
}

// WriteBaseline writes a baseline file, keeping the previous history and
// adding this update.
func WriteBaseline(path string, scenarios []BaselineScenario, upd BaselineUpdate) error {
	old, _, err := ReadBaseline(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	b := GateBaseline{Schema: "evalsched-gate-baseline", History: append(old.History, upd), Scenarios: scenarios}
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

// Margin is the tolerance's allowed move from a baseline figure.
func (t Tolerance) Margin(f BaselineFigure) float64 {
	return max(t.Relative*math.Abs(f.Mean), t.Absolute, t.KSE*f.SE)
}
