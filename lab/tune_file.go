package lab

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"go.yaml.in/yaml/v3"
)

// TuneFile is a tune file (README "Tune file").
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
}

// LoadTune reads a tune file; base is the point every setting overlays;
func LoadTune(path string) (*TuneFile, PointSpec, []uint64, error) {
	f := TuneFile{}
	data, err := os.ReadFile(path)
	if err == nil {
		err = decodeStrict(path, data, &f)
	}
	if err != nil {
		return nil, PointSpec{}, nil, err
	}
	if len(f.Params) == 0 || f.Objective.Metric == "" {
		return nil, PointSpec{}, nil, fmt.Errorf("%s: a tune file needs params, an objective and seeds", path)
	}
	for _, g := range append([]*TuneGoal{&f.Objective}, f.TradeOff) {
		if g == nil {
			continue
		}
		switch {
		case g.Goal != "" && g.Goal != "max" && g.Goal != "min" && g.Goal != "target":
			return nil, PointSpec{}, nil, fmt.Errorf("%s: goal %q: want max, min or target", path, g.Goal)
		case (g.Goal == "target") != (g.Target != nil):
			return nil, PointSpec{}, nil, fmt.Errorf("%s: goal target and a target value go together (goal %q)", path, g.Goal)
		}
	}
	seeds, err := seedRange(path, data, f.Seeds, f.First)
	if err != nil {
		return nil, PointSpec{}, nil, err
	}
	for i, p := range f.Params {
		if p.Key == "" || !(p.Max > p.Min) || (p.Log && p.Min <= 0) {
			return nil, PointSpec{}, nil, fmt.Errorf("%s: params[%d]: needs a key and min < max (min > 0 on a log scale)", at(path, data, fmt.Sprintf("params[%d]", i)), i)
		}
		where := fmt.Sprintf("%s: params[%d].key", at(path, data, fmt.Sprintf("params[%d].key", i)), i)
		if _, err := scenario.WithParams(nil, []scenario.Param{{Key: p.Key, Value: scenario.Scalar("0"), Where: where}}); err != nil {
			return nil, PointSpec{}, nil, err
		}
		f.where = append(f.where, where)
	}
	for _, m := range append([]string{f.Objective.Metric}, constraintMetrics(f)...) {
		if !slices.Contains(MetricNames, m) {
			return nil, PointSpec{}, nil, fmt.Errorf("%s: unknown metric %q (have %s)", path, m, strings.Join(MetricNames, ", "))
		}
		f.Baseline = f.Baseline || NeedsBaseline(m)
	}
	base := PointSpec{Scenario: ResolveScenario(path, f.Scenario), Policy: f.Policy, Variant: f.Variant, Baseline: f.Baseline}
	if f.Overlay.Kind == yaml.MappingNode {
		base.Overlay = &f.Overlay
	}
	return &f, base, seeds, nil
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
	p.ID, p.Params = id, nil
	for j, q := range f.Params {
		p.Params = append(p.Params, scenario.Param{Key: q.Key, Value: scenario.Scalar(q.Format(x[j])), Where: f.where[j]})
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
	better := func(g TuneGoal, a, b float64) bool {
		switch g.Goal {
		case "min":
			return a < b
		case "target":
			return g.Miss(a) < g.Miss(b)
		}
		return a > b
	}
	var front []TuneEval
	for _, e := range evals {
		if !e.Feasible {
			continue
		}
		dominated := false
		for _, o := range evals {
			oa, ea := o.Figures[obj.Key()], e.Figures[obj.Key()]
			ob, eb := o.Figures[trade.Key()], e.Figures[trade.Key()]
			if o.Feasible && !better(obj, ea, oa) && !better(trade, eb, ob) && (better(obj, oa, ea) || better(trade, ob, eb)) {
				dominated = true
				break
			}
		}
		if !dominated {
			front = append(front, e)
		}
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
			row = append(row, FormatFloat(e.Figures[k]))
		}
		b.WriteString(strings.Join(row, ",") + "\n")
	}
	return results.WriteFileAtomic(path, []byte(b.String()))
}
