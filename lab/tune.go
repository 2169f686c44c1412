package lab

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/optimize"
)

// TuneParam is one setting tune searches: a dotted scenario key over
// [min, max], on a log scale if log, rounded if integer; unit is appended
// to the value in the overlay ("s" for a duration in seconds).
type TuneParam struct {
	Key     string  `yaml:"key"`
	Min     float64 `yaml:"min"`
	Max     float64 `yaml:"max"`
	Integer bool    `yaml:"integer"`
	Log     bool    `yaml:"log"`
	Unit    string  `yaml:"unit"`
}

// TuneGoal is a figure to maximise or minimise, or (goal target) to bring
// as close as it can be to Target: the score is then |figure − Target|.
type TuneGoal struct {
	Metric string   `yaml:"metric"`
	Lane   string   `yaml:"lane"`
	Goal   Goal     `yaml:"goal"`   // max, min or target
	Target *float64 `yaml:"target"` // with goal target: the value to come closest to
}

// Miss is how far v is from the goal's target (goal target only).
func (g TuneGoal) Miss(v float64) float64 { return math.Abs(v - *g.Target) }

// TuneConstraint bounds a figure (its mean over the seeds).
type TuneConstraint struct {
	Metric string   `yaml:"metric"`
	Lane   string   `yaml:"lane"`
	Min    *float64 `yaml:"min"`
	Max    *float64 `yaml:"max"`
}

// Key is the goal's figure.
func (g TuneGoal) Key() MetricKey { return MetricKey{laneOr(g.Lane), g.Metric} }

// Key is the constraint's figure.
func (c TuneConstraint) Key() MetricKey { return MetricKey{laneOr(c.Lane), c.Metric} }

func laneOr(l string) string {
	if l == "" {
		return AllLanes
	}
	return l
}

// TuneEval is one evaluated setting: its parameter values, its figures
// (means over the seeds), whether it meets every constraint and by how
// much it misses them (0 when feasible).
type TuneEval struct {
	X         []float64
	Figures   map[MetricKey]float64
	Feasible  bool
	Violation float64
}

// Tuner searches params for the best objective under constraints: a
// coarse grid (3 levels per parameter, evaluated as one batch), then
// Nelder–Mead (gonum/optimize) on the unit cube from the best grid point
// with constraint violations as a penalty, then a compass search (±1 for
// integers, halving steps for the rest) from the best feasible point.
// Settings are rounded before evaluation and each is evaluated once.
type Tuner struct {
	Params      []TuneParam
	Objective   TuneGoal
	Constraints []TuneConstraint
	Budget      int // most distinct settings evaluated
	// Eval runs a batch of settings and returns their figures in order.
	Eval func(xs [][]float64) ([]map[MetricKey]float64, error)

	evals []TuneEval
	seen  map[string]int
}

// Evaluations are every setting evaluated, in order.
func (t *Tuner) Evaluations() []TuneEval { return t.evals }

// value maps a coordinate in [0, 1] to the parameter's value.
func (p TuneParam) value(u float64) float64 {
	u = min(1, max(0, u))
	var v float64
	if p.Log && p.Min > 0 {
		v = math.Exp(math.Log(p.Min) + u*(math.Log(p.Max)-math.Log(p.Min)))
	} else {
		v = p.Min + u*(p.Max-p.Min)
	}
	if p.Integer {
		return math.Round(v)
	}
	return math.Round(v*1000) / 1000 // three decimals: settings a person writes
}

// unit maps a value back to [0, 1].
func (p TuneParam) unit(v float64) float64 {
	if p.Max == p.Min {
		return 0
	}
	if p.Log && p.Min > 0 {
		return (math.Log(v) - math.Log(p.Min)) / (math.Log(p.Max) - math.Log(p.Min))
	}
	return (v - p.Min) / (p.Max - p.Min)
}

// Format is the value as written in an overlay.
func (p TuneParam) Format(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + p.Unit }

func (t *Tuner) sign() float64 {
	if t.Objective.Goal == GoalMin {
		return 1
	}
	return -1
}

// score is what the optimiser minimises: the signed objective (or its
// miss of the target) plus a penalty far above any objective difference
// for missing a constraint.
func (t *Tuner) score(e TuneEval) float64 {
	obj := t.sign() * e.Figures[t.Objective.Key()]
	if t.Objective.Goal == "target" {
		obj = t.Objective.Miss(e.Figures[t.Objective.Key()])
	}
	if e.Feasible {
		return obj
	}
	return obj + 1e6*(1+e.Violation)
}

// judge fills Feasible and Violation (relative misses, summed). A figure
// the runs could not measure (Jain's index with no two projects backlogged
// together) meets no constraint: a setting is feasible only when every
// bound is shown to hold; an unmeasured objective likewise.
func (t *Tuner) judge(e *TuneEval) {
	if _, ok := e.Figures[t.Objective.Key()]; !ok {
		e.Violation++
	}
	for _, c := range t.Constraints {
		v, ok := e.Figures[c.Key()]
		if !ok {
			e.Violation++
			continue
		}
		if c.Min != nil && v < *c.Min {
			e.Violation += (*c.Min - v) / math.Max(1, math.Abs(*c.Min))
		}
		if c.Max != nil && v > *c.Max {
			e.Violation += (v - *c.Max) / math.Max(1, math.Abs(*c.Max))
		}
	}
	e.Feasible = e.Violation == 0
}

func key(x []float64) string { return fmt.Sprint(x) }

// evaluate runs the settings not seen yet (within the budget) as one
// batch and returns the evaluations of all of xs (nil past the budget).
func (t *Tuner) evaluate(us [][]float64) ([]*TuneEval, error) {
	var todo [][]float64
	xs := make([][]float64, len(us))
	for i, u := range us {
		for j, p := range t.Params {
			xs[i] = append(xs[i], p.value(u[j]))
		}
		k := key(xs[i])
		if _, ok := t.seen[k]; !ok && len(t.seen) < t.Budget {
			t.seen[k] = -1
			todo = append(todo, xs[i])
		}
	}
	if len(todo) > 0 {
		figs, err := t.Eval(todo)
		if err != nil {
			return nil, err
		}
		for i, x := range todo {
			e := TuneEval{X: x, Figures: figs[i]}
			t.judge(&e)
			t.seen[key(x)] = len(t.evals)
			t.evals = append(t.evals, e)
		}
	}
	out := make([]*TuneEval, len(xs))
	for i, x := range xs {
		if j := t.seen[key(x)]; j >= 0 {
			out[i] = &t.evals[j]
		}
	}
	return out, nil
}

// Best is the best feasible evaluation so far (ok false if none).
func (t *Tuner) Best() (TuneEval, bool) {
	best, ok := TuneEval{}, false
	for _, e := range t.evals {
		if e.Feasible && (!ok || t.score(e) < t.score(best)) {
			best, ok = e, true
		}
	}
	return best, ok
}

// ErrNoFeasible is Run's error when no setting evaluated met every
// constraint (the search ran; the constraints are what to revisit).
var ErrNoFeasible = errors.New("no setting met the constraints")

// Run searches and returns the best feasible setting.
func (t *Tuner) Run() (TuneEval, error) {
	t.seen, t.evals = map[string]int{}, nil
	if t.Budget <= 0 {
		t.Budget = DefaultTuneBudget
	}
	if _, err := t.evaluate(gridUnits(len(t.Params))); err != nil {
		return TuneEval{}, err
	}
	start := slices.MinFunc(t.evals, func(a, b TuneEval) int { return cmpFloat(t.score(a), t.score(b)) })
	if err := t.nelderMead(start); err != nil {
		return TuneEval{}, err
	}
	if err := t.compass(); err != nil {
		return TuneEval{}, err
	}
	best, ok := t.Best()
	if !ok {
		return TuneEval{}, fmt.Errorf("%w in %d evaluations: %s", ErrNoFeasible, len(t.evals), t.misses())
	}
	return best, nil
}

// cmpFloat orders two figures; unlike cmp.Compare, a NaN ties with
// everything, so it neither wins nor loses a search.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// misses describes the least-violating evaluation.
func (t *Tuner) misses() string {
	e := slices.MinFunc(t.evals, func(a, b TuneEval) int { return cmpFloat(a.Violation, b.Violation) })
	var parts []string
	for _, c := range t.Constraints {
		v, ok := e.Figures[c.Key()]
		if !ok {
			parts = append(parts, fmt.Sprintf("%s %s not measured", c.Key().Lane, c.Metric))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s = %.4g", c.Key().Lane, c.Metric, v))
	}
	return "closest: " + strings.Join(parts, ", ")
}

// gridUnits is 3 levels (0, ½, 1) per dimension.
func gridUnits(d int) [][]float64 {
	out := [][]float64{nil}
	for range d {
		var next [][]float64
		for _, u := range out {
			for _, l := range []float64{0, 0.5, 1} {
				next = append(next, append(slices.Clone(u), l))
			}
		}
		out = next
	}
	return out
}

func (t *Tuner) units(x []float64) []float64 {
	u := make([]float64, len(x))
	for j, p := range t.Params {
		u[j] = p.unit(x[j])
	}
	return u
}

// nelderMead refines from start on the penalised score.
func (t *Tuner) nelderMead(start TuneEval) error {
	var evalErr error
	problem := optimize.Problem{Func: func(u []float64) float64 {
		if evalErr != nil || len(t.seen) >= t.Budget {
			return math.Inf(1)
		}
		es, err := t.evaluate([][]float64{u})
		if err != nil {
			evalErr = err
			return math.Inf(1)
		}
		if es[0] == nil {
			return math.Inf(1)
		}
		return t.score(*es[0])
	}}
	settings := &optimize.Settings{FuncEvaluations: 4 * t.Budget, Converger: &optimize.FunctionConverge{Absolute: 1e-9, Iterations: 2 * len(t.Params)}}
	// An error from Minimize is a stop (no progress, infinite values past
	// the budget): the compass search goes on from the best point found.
	optimize.Minimize(problem, t.units(start.X), settings, &optimize.NelderMead{SimplexSize: 0.25})
	return evalErr
}

// compass moves from the best feasible point along each parameter while
// that improves the score: ±1 for integers, steps halving from ⅛ of the
// range for the rest.
func (t *Tuner) compass() error {
	best, ok := t.Best()
	if !ok {
		return nil
	}
	step := 0.125
	for len(t.seen) < t.Budget && step > 1.0/512 {
		var cands [][]float64
		for j, p := range t.Params {
			for _, dir := range []float64{-1, 1} {
				x := slices.Clone(best.X)
				if p.Integer {
					x[j] = min(p.Max, max(p.Min, x[j]+dir))
				} else {
					x[j] = p.value(p.unit(x[j]) + dir*step)
				}
				cands = append(cands, t.units(x))
			}
		}
		es, err := t.evaluate(cands)
		if err != nil {
			return err
		}
		improved := false
		for _, e := range es {
			if e != nil && e.Feasible && t.score(*e) < t.score(best) {
				best, improved = *e, true
			}
		}
		if !improved {
			step /= 2
		}
	}
	return nil
}
