package lab

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/evalsched/lab/internal/pareto"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"go.yaml.in/yaml/v3"
)

// TuneFile is a tune file (docs/reference/decision-files.md, "Tune file").
type TuneFile struct {
	Scenario    string           `yaml:"scenario"`
	Policy      string           `yaml:"policy"`
	Variant     string           `yaml:"variant"`
	Overlay     yaml.Node        `yaml:"overlay"`
	Seeds       int              `yaml:"seeds"`
	First       uint64           `yaml:"first_seed"`
	Baseline    bool             `yaml:"baseline"`
	Params      []TuneParam      `yaml:"params"`
	Objective   TuneGoal         `yaml:"objective"`
	Constraints []TuneConstraint `yaml:"constraints"`
	TradeOff    *TuneGoal        `yaml:"trade_off"`
	Budget      int              `yaml:"budget"`
	where       []string         // where each param's key is written, for errors
	lines       []int            // the line of each param's key
}

// MaxTuneParams bounds a tune's parameters: its first grid is 3 levels
// per parameter, 3^8 = 6,561 settings at most, counted before it is built.
const MaxTuneParams = 8

// DefaultTuneBudget is the budget of a tune file that gives none;
// MaxTuneBudget the most it may give.
const (
	DefaultTuneBudget = 60
	MaxTuneBudget     = 10_000
)

// LoadTune reads a tune file, every name resolved (scenario, variant,
// policy, parameter keys and their list items, metrics, lanes) and every
// number checked before anything runs; base is the point every setting
// overlays.
func LoadTune(path string) (*TuneFile, PointSpec, []uint64, error) {
	const what, need = "a tune", "scenario, seeds, params and an objective"
	f := TuneFile{}
	data, root, bad, err := decodeFile(path, what, need, &f)
	if err != nil {
		return nil, PointSpec{}, nil, err
	}
	if err := checkPointRefs(path, root, "", f.Scenario, f.Policy, f.Variant, &f.Overlay); err != nil {
		return nil, PointSpec{}, nil, err
	}
	if len(f.Params) == 0 {
		return nil, PointSpec{}, nil, bad("params", "a tune file needs params (the settings it searches)")
	}
	if len(f.Params) > MaxTuneParams {
		return nil, PointSpec{}, nil, bad(fmt.Sprintf("params[%d]", MaxTuneParams), "%d params: a tune searches at most %d (its first grid alone would be 3^%d settings)", len(f.Params), MaxTuneParams, len(f.Params))
	}
	if f.Objective.Metric == "" {
		return nil, PointSpec{}, nil, bad("objective", "a tune file needs an objective: {metric: NAME, goal: max|min} (have %s)", strings.Join(MetricNames, ", "))
	}
	for i, g := range []*TuneGoal{&f.Objective, f.TradeOff} {
		if g == nil {
			continue
		}
		if (g.Goal == GoalTarget) != (g.Target != nil) {
			return nil, PointSpec{}, nil, bad([]string{"objective", "trade_off"}[i], "goal target and a target value go together (goal %q)", g.Goal)
		}
	}
	seeds, err := seedRange(path, data, f.Seeds, f.First)
	if err != nil {
		return nil, PointSpec{}, nil, err
	}
	switch {
	case f.Budget < 0:
		return nil, PointSpec{}, nil, bad("budget", "must be >= 1 (or left out: %d), got %d", DefaultTuneBudget, f.Budget)
	case f.Budget > MaxTuneBudget:
		return nil, PointSpec{}, nil, bad("budget", "at most %d settings, got %d", MaxTuneBudget, f.Budget)
	case f.Budget == 0 && lineOf(root, "budget") > 0:
		return nil, PointSpec{}, nil, bad("budget", "must be >= 1 (or left out: %d), got 0", DefaultTuneBudget)
	case f.Budget == 0:
		f.Budget = DefaultTuneBudget
	}
	for i, p := range f.Params {
		at := fmt.Sprintf("params[%d]", i)
		if p.Key == "" {
			return nil, PointSpec{}, nil, bad(at, "needs a key (a dotted scenario key)")
		}
		for j, q := range f.Params[:i] {
			if q.Key == p.Key {
				return nil, PointSpec{}, nil, bad(at+".key", "%q given twice (params[%d])", p.Key, j)
			}
		}
		switch {
		case !finite(p.Min) || !finite(p.Max):
			return nil, PointSpec{}, nil, bad(at, "min and max must be finite numbers")
		case !(p.Max > p.Min):
			return nil, PointSpec{}, nil, bad(at, "needs a key and min < max (min > 0 on a log scale), got min %g, max %g", p.Min, p.Max)
		case p.Log && p.Min <= 0:
			return nil, PointSpec{}, nil, bad(at, "needs a key and min < max (min > 0 on a log scale), got min %g on a log scale", p.Min)
		case p.Integer && (p.Min != math.Trunc(p.Min) || p.Max != math.Trunc(p.Max) || math.Abs(p.Min) > 1<<53 || math.Abs(p.Max) > 1<<53):
			return nil, PointSpec{}, nil, bad(at, "an integer parameter needs whole min and max, got %g and %g", p.Min, p.Max)
		}
		where := fmt.Sprintf("%s: %s.key", atLine(path, root, at+".key"), at)
		if _, err := scenario.WithParams(nil, []scenario.Param{{Key: p.Key, Value: scenario.Scalar("0"), Where: where}}); err != nil {
			return nil, PointSpec{}, nil, err
		}
		f.where = append(f.where, where)
		f.lines = append(f.lines, lineOf(root, at+".key"))
	}
	goals := []struct {
		at string
		g  *TuneGoal
	}{{"objective", &f.Objective}}
	if f.TradeOff != nil {
		goals = append(goals, struct {
			at string
			g  *TuneGoal
		}{"trade_off", f.TradeOff})
	}
	for _, g := range goals {
		if g.g.Metric == "" {
			return nil, PointSpec{}, nil, bad(g.at, "needs a metric (have %s)", strings.Join(MetricNames, ", "))
		}
		if !slices.Contains(MetricNames, g.g.Metric) {
			return nil, PointSpec{}, nil, bad(g.at+".metric", "unknown metric %q (have %s)", g.g.Metric, strings.Join(MetricNames, ", "))
		}
		if g.g.Goal == "" {
			return nil, PointSpec{}, nil, bad(g.at, "needs a goal: max or min")
		}
	}
	if f.TradeOff != nil && f.TradeOff.Key() == f.Objective.Key() {
		return nil, PointSpec{}, nil, bad("trade_off", "is the objective itself: a front needs a second figure")
	}
	for i, c := range f.Constraints {
		at := fmt.Sprintf("constraints[%d]", i)
		if !slices.Contains(MetricNames, c.Metric) {
			return nil, PointSpec{}, nil, bad(at+".metric", "unknown metric %q (have %s)", c.Metric, strings.Join(MetricNames, ", "))
		}
		if c.Min == nil && c.Max == nil {
			return nil, PointSpec{}, nil, bad(at, "gives neither min nor max: it would constrain nothing")
		}
		for _, b := range []struct {
			k string
			v *float64
		}{{"min", c.Min}, {"max", c.Max}} {
			if b.v != nil && !finite(*b.v) {
				return nil, PointSpec{}, nil, bad(at+"."+b.k, "must be a finite number, got %g", *b.v)
			}
		}
		if c.Min != nil && c.Max != nil && *c.Min > *c.Max {
			return nil, PointSpec{}, nil, bad(at, "min %g is above max %g: no setting could meet it", *c.Min, *c.Max)
		}
		for j, d := range f.Constraints[:i] {
			if d.Key() == c.Key() {
				return nil, PointSpec{}, nil, bad(at, "%s on lane %q is already constrained by constraints[%d]: give min and max in one", c.Metric, c.Key().Lane, j)
			}
		}
	}
	for _, m := range append([]string{f.Objective.Metric}, constraintMetrics(f)...) {
		f.Baseline = f.Baseline || NeedsBaseline(m)
	}
	base := PointSpec{File: path, Scenario: ResolveScenario(path, f.Scenario), Policy: f.Policy, Variant: f.Variant, Baseline: f.Baseline}
	if f.Overlay.Kind == yaml.MappingNode {
		base.Overlay = &f.Overlay
		var keys []string
		for _, p := range f.Params {
			keys = append(keys, p.Key)
		}
		if err := notInOverlay(path, root, base.Overlay, keys, "params"); err != nil {
			return nil, PointSpec{}, nil, err
		}
	}
	// The first setting the search runs (every parameter at its minimum)
	// is built now: a misspelt list item, a value the scenario refuses or
	// a lane it lacks is reported with nothing run or written.
	lows := make([]float64, len(f.Params))
	for j, p := range f.Params {
		lows[j] = p.Min
	}
	first, err := f.Point(base, "t000", lows)
	if err != nil {
		return nil, PointSpec{}, nil, err
	}
	v, err := BuildPoint(first, map[string]*scenario.Scenario{})
	if err != nil {
		return nil, PointSpec{}, nil, refError(path, root, "", err)
	}
	lanes := append([]string{AllLanes}, v.Scenario.Catalogue()...)
	check := func(at, lane, metric string) error {
		if lane != "" && !slices.Contains(lanes, lane) {
			return bad(at+".lane", "the scenario has no lane %q (have %s)", lane, strings.Join(lanes, ", "))
		}
		if lane != "" && lane != AllLanes && (metric == MetricJain || metric == MetricOutage) {
			return bad(at+".lane", "%s exists only on lane %q, not per model", metric, AllLanes)
		}
		return nil
	}
	for _, g := range goals {
		if err := check(g.at, g.g.Lane, g.g.Metric); err != nil {
			return nil, PointSpec{}, nil, err
		}
	}
	for i, c := range f.Constraints {
		if err := check(fmt.Sprintf("constraints[%d]", i), c.Lane, c.Metric); err != nil {
			return nil, PointSpec{}, nil, err
		}
	}
	return &f, base, seeds, nil
}

// atLine is "path:line" of a field of a parsed file.
func atLine(path string, root *yaml.Node, at string) string {
	if line := lineOf(root, at); line > 0 {
		return fmt.Sprintf("%s:%d", path, line)
	}
	return path
}

func constraintMetrics(f TuneFile) []string {
	var ms []string
	for _, c := range f.Constraints {
		ms = append(ms, c.Metric)
	}
	if f.TradeOff != nil {
		ms = append(ms, f.TradeOff.Metric)
	}
	return ms
}

// Point is the setting x as a point: base with the parameters overlaid.
func (f *TuneFile) Point(base PointSpec, id string, x []float64) (PointSpec, error) {
	p := base
	p.ID, p.Params, p.Name = id, nil, ""
	for j, q := range f.Params {
		v := scenario.Scalar(q.Format(x[j]))
		if j < len(f.lines) {
			v.Line = f.lines[j] // a value the scenario refuses is blamed on the param
		}
		p.Params = append(p.Params, scenario.Param{Key: q.Key, Value: v, Where: f.where[j]})
	}
	p.Name, p.Settings = paramName(p.Params), p.Params
	var err error
	p.Overlay, err = scenario.WithParams(base.Overlay, p.Params)
	return p, err
}

// OverlayYAML is the recommended setting as YAML, ready to paste into a
// scenario (top level, or under variants.NAME).
func (f *TuneFile) OverlayYAML(x []float64) (string, error) {
	var params []scenario.Param
	for j, q := range f.Params {
		params = append(params, scenario.Param{Key: q.Key, Value: scenario.Scalar(q.Format(x[j]))})
	}
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	overlay, err := scenario.WithParams(nil, params)
	if err != nil {
		return "", err
	}
	if err := enc.Encode(overlay); err != nil {
		return "", err
	}
	return b.String(), enc.Close()
}

// ParetoFront is the feasible evaluations no other feasible one beats on
// both the objective and the trade-off, by objective.
func ParetoFront(evals []TuneEval, obj, trade TuneGoal) []TuneEval {
	better := func(g TuneGoal) pareto.Better {
		if g.Goal == GoalTarget {
			return func(a, b float64) bool { return g.Miss(a) < g.Miss(b) }
		}
		return g.Goal.Better
	}
	var feasible []TuneEval
	var xs, ys []float64
	for _, e := range evals {
		if _, ok := e.Figures[trade.Key()]; e.Feasible && ok { // an unmeasured trade-off has no place on the front
			feasible = append(feasible, e)
			xs, ys = append(xs, e.Figures[obj.Key()]), append(ys, e.Figures[trade.Key()])
		}
	}
	var front []TuneEval
	for _, i := range pareto.Front(xs, ys, better(obj), better(trade)) {
		front = append(front, feasible[i])
	}
	slices.SortFunc(front, func(a, b TuneEval) int { return cmpFloat(a.Figures[obj.Key()], b.Figures[obj.Key()]) })
	return front
}

// WriteTuneCSV writes every evaluation: the parameters, whether it met the
// constraints, and the objective, trade-off and constrained figures.
func (f *TuneFile) WriteTuneCSV(path string, evals []TuneEval) error {
	keys := []MetricKey{f.Objective.Key()}
	if f.TradeOff != nil {
		keys = append(keys, f.TradeOff.Key())
	}
	for _, c := range f.Constraints {
		if !slices.Contains(keys, c.Key()) {
			keys = append(keys, c.Key())
		}
	}
	var b strings.Builder
	var head []string
	for _, p := range f.Params {
		head = append(head, p.Key)
	}
	head = append(head, "feasible")
	for _, k := range keys {
		head = append(head, k.Lane+" "+k.Metric)
	}
	b.WriteString(strings.Join(head, ",") + "\n")
	for _, e := range evals {
		var row []string
		for j, p := range f.Params {
			row = append(row, p.Format(e.X[j]))
		}
		row = append(row, fmt.Sprint(e.Feasible))
		for _, k := range keys {
			if v, ok := e.Figures[k]; ok {
				row = append(row, FormatFloat(v))
			} else {
				row = append(row, "") // not measured, not 0
			}
		}
		b.WriteString(strings.Join(row, ",") + "\n")
	}
	return results.WriteFileAtomic(path, []byte(b.String()))
}
