package behaviourfit

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/evalsched/lab/workloads"
	"github.com/google/go-cmp/cmp"
)

func draws(t *testing.T, d workloads.Dist, n int) []float64 {
	t.Helper()
	if err := d.Validate("d"); err != nil {
		t.Fatal(err)
	}
	src := rand.NewPCG(1, 2)
	v := make([]float64, n)
	for i := range v {
		v[i] = d.Sample(src)
	}
	return v
}

// TestFitRecovers: draws of each family are fitted back to that family,
// parameters within a few per cent.
func TestFitRecovers(t *testing.T) {
	for _, tc := range []struct {
		d     workloads.Dist
		param func(workloads.Dist) float64
	}{
		{workloads.Dist{Kind: "lognormal", Median: 400, Sigma: 0.8}, func(d workloads.Dist) float64 { return d.Median }},
		{workloads.Dist{Kind: "exponential", Mean: 8}, func(d workloads.Dist) float64 { return d.Mean }},
		{workloads.Dist{Kind: "uniform", Min: 10, Max: 50}, func(d workloads.Dist) float64 { return d.Max }},
		{workloads.Dist{Kind: "pareto", Min: 2, Max: 200, Alpha: 1.3}, func(d workloads.Dist) float64 { return d.Alpha }},
	} {
		f := FitSample("x", draws(t, tc.d, 5000))
		if f.Dist.Kind != tc.d.Kind {
			t.Errorf("%s: fitted %s (%+v)", tc.d.Kind, f.Dist.Kind, f.Candidates)
			continue
		}
		if got, want := tc.param(f.Dist), tc.param(tc.d); math.Abs(got/want-1) > 0.05 {
			t.Errorf("%s: parameter %g, want %g ± 5%%", tc.d.Kind, got, want)
		}
	}
}

func TestFitSmallAndFlat(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want workloads.Dist
		why  string
	}{
		{[]float64{1, 2, 3}, workloads.Fixed(2), "fewer than 8"},
		{[]float64{3, 3, 3, 3, 3, 3, 3, 3, 3}, workloads.Fixed(3), "every value equal"},
		{nil, workloads.Fixed(0), "no values"},
	} {
		f := FitSample("x", tc.xs)
		if !f.Dist.Equal(tc.want) || !strings.Contains(f.Criterion, tc.why) {
			t.Errorf("%v: %+v (%s), want %+v (%s)", tc.xs, f.Dist, f.Criterion, tc.want, tc.why)
		}
	}
	// Zeros rule out lognormal and Pareto, and say so.
	f := FitSample("x", []float64{0, 1, 2, 0.5, 3, 1, 0.2, 4, 2})
	for _, c := range f.Candidates {
		if (c.Dist.Kind == "lognormal" || c.Dist.Kind == "pareto") && c.Why == "" {
			t.Errorf("%s fitted to data with a zero", c.Dist.Kind)
		}
	}
}

// TestSampleFromPlan: the quantities of a hand-made plan, worked out by hand.
func TestSampleFromPlan(t *testing.T) {
	p := &workloads.CallPlan{Turns: []workloads.PlanTurn{
		{Calls: []workloads.PlanCall{{In: 1000, Out: 100}, {In: 1000, Out: 50}}, Tool: 2 * time.Second},
		{Calls: []workloads.PlanCall{{In: 1400, Out: 30}}, Tool: 500 * time.Millisecond},
		{Calls: []workloads.PlanCall{{In: 1200, Out: 10}}}, // shorter than 1400 + 30: clamped to 0
	}}
	var s Sample
	s.Add(p)
	got := map[string][]float64{"turns": s.Turns, "fanout": s.Fanout, "prompt": s.Prompt, "output": s.Output, "tool_tokens": s.ToolTokens, "tool_seconds": s.ToolSeconds}
	want := map[string][]float64{"turns": {3}, "fanout": {2, 1, 1}, "prompt": {1000}, "output": {100, 50, 30, 10},
		"tool_tokens": {1400 - 1000 - 150, 0}, "tool_seconds": {2, 0.5}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if s.ClampedToolTokens != 1 {
		t.Errorf("clamped %d, want 1", s.ClampedToolTokens)
	}
}

// TestPhaseSwitch: jobs whose last 30% of turns fan out to 3-5 calls get
// a phase switch near 0.7; jobs with one fan-out throughout get none.
func TestPhaseSwitch(t *testing.T) {
	src := rand.New(rand.NewPCG(3, 4))
	build := func(switching bool) *Sample {
		var s Sample
		for range 200 {
			n := 5 + src.IntN(20)
			p := &workloads.CallPlan{}
			for k := 1; k <= n; k++ {
				fan := 1 + src.IntN(2)
				if switching && k >= int(math.Ceil(0.7*float64(n))) {
					fan = 3 + src.IntN(3)
				}
				turn := workloads.PlanTurn{Tool: time.Second}
				for range fan {
					turn.Calls = append(turn.Calls, workloads.PlanCall{In: 1000 * k, Out: 100})
				}
				p.Turns = append(p.Turns, turn)
			}
			s.Add(p)
		}
		return &s
	}
	r := build(true).Fit()
	if r.Phase == nil || math.Abs(r.Phase.AtFraction-0.7) > 0.11 {
		t.Fatalf("phase %+v, want a switch at about 0.7", r.Phase)
	}
	if r.Phase.After.Mean < 3 || r.Phase.Before.Mean > 2 {
		t.Errorf("fan-out before %g, after %g; want below 2, then 3-5", r.Phase.Before.Mean, r.Phase.After.Mean)
	}
	if err := Check(r.YAML("test")); err != nil {
		t.Errorf("the YAML does not load: %v\n%s", err, r.YAML("test"))
	}
	if r := build(false).Fit(); r.Phase != nil {
		t.Errorf("a switch %+v found in data without one", r.Phase)
	}
}

// TestCopilotPreset: the preset loads, and its means are the published
// aggregates as its comments map them (3.95 × 7.83 one-call turns a
// session; 7.3 / 7.83 tool calls of an assumed 4 s after each).
func TestCopilotPreset(t *testing.T) {
	b, err := Preset("copilot-coding-agent")
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(b); err != nil {
		t.Fatal(err)
	}
	var bh workloads.Behaviour
	if err := yamlStrict(b, &bh); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"LLM calls a session", bh.Turns.MeanValue() * bh.Fanout.MeanValue(), 3.95 * 7.83},
		{"tool seconds a lab turn", bh.ToolSeconds.MeanValue(), 7.3 / 7.83 * 4},
	} {
		if math.Abs(tc.got/tc.want-1) > 0.005 {
			t.Errorf("%s: mean %g, want %g", tc.name, tc.got, tc.want)
		}
	}
	if _, err := Preset("nope"); err == nil || !strings.Contains(err.Error(), "copilot-coding-agent") {
		t.Errorf("unknown preset: %v", err)
	}
}

// TestCapAtLimits: a fit beyond the simulator's limits (a tool gap of days)
// is capped so that the behaviour still loads.
func TestCapAtLimits(t *testing.T) {
	var s Sample
	for k := range 10 {
		s.Add(&workloads.CallPlan{Turns: []workloads.PlanTurn{
			{Calls: []workloads.PlanCall{{In: 10, Out: 1}}, Tool: time.Duration(k+1) * 30 * time.Hour},
			{Calls: []workloads.PlanCall{{In: 20, Out: 1}}},
		}})
	}
	r := s.Fit()
	if _, hi := r.ToolSecs.Dist.Bounds(); hi > workloads.MaxToolSeconds || !strings.Contains(r.ToolSecs.Criterion, "capped") {
		t.Errorf("tool seconds %+v (%s), want capped at %d", r.ToolSecs.Dist, r.ToolSecs.Criterion, workloads.MaxToolSeconds)
	}
	if err := Check(r.YAML("test")); err != nil {
		t.Errorf("the YAML does not load: %v", err)
	}
}

func TestFigures(t *testing.T) {
	var s Sample
	src := rand.New(rand.NewPCG(5, 6))
	for range 50 {
		p := &workloads.CallPlan{}
		for k := range 3 + src.IntN(5) {
			p.Turns = append(p.Turns, workloads.PlanTurn{Calls: []workloads.PlanCall{{In: 500 + 300*k, Out: 50 + src.IntN(200)}}, Tool: time.Duration(src.IntN(5000)) * time.Millisecond})
		}
		s.Add(p)
	}
	figs, err := s.Fit().Figures()
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 6 {
		t.Errorf("%d figures, want 6", len(figs))
	}
	for _, f := range figs {
		if !strings.HasPrefix(string(f.PNG), "\x89PNG") {
			t.Errorf("%s is not a PNG", f.Name)
		}
	}
}
