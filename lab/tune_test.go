package lab

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func fp(v float64) *float64 { return &v }

// TestTunerSyntheticOptimum: tune finds the known constrained optimum of
// synthetic objectives and never recommends a setting that breaks a
// constraint.
func TestTunerSyntheticOptimum(t *testing.T) {
	obj := MetricKey{AllLanes, "obj"}
	con := MetricKey{AllLanes, "con"}
	tests := []struct {
		name   string
		params []TuneParam
		f      func(x []float64) (objective, constraint float64)
		cons   []TuneConstraint
		goal   string
		want   []float64
		tol    float64
	}{{
		// max −(x−3)² − (y−7)² on integers subject to x + y ≤ 8: the
		// closest feasible lattice point to (3, 7) is (2, 6) (value −2; the
		// next, (3, 5) and (1, 7), are −4).
		name:   "integer, constraint binding",
		params: []TuneParam{{Key: "x", Min: 0, Max: 10, Integer: true}, {Key: "y", Min: 0, Max: 10, Integer: true}},
		f: func(x []float64) (float64, float64) {
			return -(x[0]-3)*(x[0]-3) - (x[1]-7)*(x[1]-7), x[0] + x[1]
		},
		cons: []TuneConstraint{{Metric: "con", Max: fp(8)}},
		goal: "max", want: []float64{2, 6}, tol: 0,
	}, {
		// min (ln d − ln 12)² + (f − 1.3)² over d in [2, 64] (log scale),
		// f in [1.05, 2]; unconstrained optimum d = 12, f = 1.3.
		name:   "continuous, log scale, minimise",
		params: []TuneParam{{Key: "d", Min: 2, Max: 64, Log: true}, {Key: "f", Min: 1.05, Max: 2}},
		f: func(x []float64) (float64, float64) {
			return math.Pow(math.Log(x[0])-math.Log(12), 2) + math.Pow(x[1]-1.3, 2), 0
		},
		cons: []TuneConstraint{{Metric: "con", Max: fp(1)}},
		goal: "min", want: []float64{12, 1.3}, tol: 0.3,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tu := &Tuner{Params: tt.params, Objective: TuneGoal{Metric: "obj", Goal: Goal(tt.goal)}, Constraints: tt.cons, Budget: 80,
				Eval: func(xs [][]float64) ([]map[MetricKey]float64, error) {
					out := make([]map[MetricKey]float64, len(xs))
					for i, x := range xs {
						o, c := tt.f(x)
						out[i] = map[MetricKey]float64{obj: o, con: c}
					}
					return out, nil
				}}
			best, err := tu.Run()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, best.X, cmpopts.EquateApprox(0, tt.tol)); diff != "" {
				t.Errorf("best setting (-want +got):\n%s", diff)
			}
			if len(tu.Evaluations()) > 80 {
				t.Errorf("%d evaluations, budget 80", len(tu.Evaluations()))
			}
			for _, e := range tu.Evaluations() {
				_, c := tt.f(e.X)
				if e.Feasible != (c <= *tt.cons[0].Max) {
					t.Errorf("%v judged feasible=%v with constraint value %v", e.X, e.Feasible, c)
				}
			}
		})
	}
}

// TestTunerTarget: with goal target the tuner brings a figure to the target
// from either side: f(x) = x² over [0, 10] with target 30 is met nearest at
// x = √30 ≈ 5.477 (three decimals), not at either end; and max or min
// would pick an end.
func TestTunerTarget(t *testing.T) {
	key := MetricKey{AllLanes, "share"}
	tr := &Tuner{Params: []TuneParam{{Key: "x", Min: 0, Max: 10}}, Budget: 60,
		Objective: TuneGoal{Metric: "share", Goal: "target", Target: fp(30)},
		Eval: func(xs [][]float64) ([]map[MetricKey]float64, error) {
			out := make([]map[MetricKey]float64, len(xs))
			for i, x := range xs {
				out[i] = map[MetricKey]float64{key: x[0] * x[0]}
			}
			return out, nil
		}}
	best, err := tr.Run()
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Sqrt(30); math.Abs(best.X[0]-want) > 0.01 {
		t.Errorf("best x %v (figure %v), want %.3f (figure 30)", best.X[0], best.Figures[key], want)
	}
}
