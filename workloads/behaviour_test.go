package workloads

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDrawnAgentCallsArePlain (Agent.Planned): a drawn behaviour's calls
// answer the plan's per-call questions with the job's own (model -1, base
// 0, nothing recorded), at every call of every turn, which is what lets
// the simulator ask them once a job; a planned one's do not.
func TestDrawnAgentCallsArePlain(t *testing.T) {
	b := Behaviour{
		Turns: Dist{Kind: "uniform", Min: 2, Max: 6}, Fanout: Dist{Kind: "uniform", Min: 1, Max: 4},
		PromptTokens: Fixed(500), OutputTokens: Dist{Kind: "lognormal", Median: 300, Sigma: 0.5},
		ToolTokens: Fixed(50), ToolSeconds: Fixed(2), MaxTokens: 800,
	}
	if err := b.Validate("b"); err != nil {
		t.Fatal(err)
	}
	src := rand.NewPCG(0, 0)
	calls := 0
	for seed := range uint64(50) {
		var a Agent
		a.Start(&b, seed, src)
		if a.Planned() {
			t.Fatal("a drawn behaviour's agent says it follows a plan")
		}
		for n, ok := a.NextTurn(src); ok; n, ok = a.NextTurn(src) {
			for range n {
				a.NextCall(src)
				calls++
				if m, base, rec, max := a.CallModel(), a.Base(), a.Recorded(), a.MaxTokens(); m != -1 || base != 0 || !rec.IsZero() || max != b.MaxTokens {
					t.Fatalf("seed %d turn %d: a drawn call's model %d, base %v, record %+v, max tokens %d; want -1, 0, zero, %d",
						seed, a.Turn(), m, base, rec, max, b.MaxTokens)
				}
			}
			a.EndTurn()
		}
	}
	if calls == 0 {
		t.Fatal("no call drawn: the test checks nothing")
	}
	plan, err := ParseCompactPlan("100:10+200:20/1.5")
	if err != nil {
		t.Fatal(err)
	}
	var a Agent
	a.Start(PlanBehaviour(plan), 1, src)
	if !a.Planned() {
		t.Error("a planned behaviour's agent says it follows none")
	}
}

// TestFixedConversions: a fixed value's token count, counts and tool
// time as compiled are tokenDraw's, countDraw's and toolDuration's of the
// value, at halves, limits, beyond them and outside the valid range.
func TestFixedConversions(t *testing.T) {
	for _, v := range []float64{0, 0.4, 0.5, 1, 1.5, 2.5, 3, 7.49, 9_999.5, MaxFanout, MaxFanout + 0.5, MaxFanout + 1,
		MaxTurns - 0.5, MaxTurns, MaxTurns + 1, MaxToolSeconds + 1, MaxTokens - 0.5, MaxTokens, MaxTokens + 1, 1e300, -1, math.NaN()} {
		d := Fixed(v)
		whole, ok := d.fixedWhole()
		span, ok2 := d.fixedSpan()
		if !ok || !ok2 {
			t.Fatalf("Fixed(%v) is not taken as fixed", v)
		}
		got := []int64{int64(whole), int64(countOf(whole, MaxTurns)), int64(countOf(whole, MaxFanout)), int64(span)}
		want := []int64{int64(tokenDraw(v)), int64(countDraw(v, MaxTurns)), int64(countDraw(v, MaxFanout)), int64(toolDuration(v))}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Fixed(%v): tokens, turns, fan-out, tool time differ (-want +got):\n%s", v, diff)
		}
	}
	for _, d := range samplerCases()[1:] {
		if err := d.compileAt("d"); err != nil {
			t.Fatal(err)
		}
		if _, ok := d.fixedWhole(); ok {
			t.Errorf("%s taken as fixed", d.Kind)
		}
		if _, ok := d.fixedSpan(); ok {
			t.Errorf("%s taken as fixed", d.Kind)
		}
	}
}

// referenceAgent is the agent loop with every value drawn as referenceDraw
// draws it (the formulas over (*rand.Rand), not the compiled samplers)
// and converted (tokenDraw, countDraw, toolDuration) where it is taken:
// the job's turns and, for each, its tool step (its stream seeded whether
// or not it is drawn from) and its calls' tokens and latency draws.
func referenceAgent(b *Behaviour, seed uint64, src *rand.PCG) []float64 {
	src.Seed(seed, 0x7475726e73)
	turns := countDraw(referenceDraw(&b.Turns, opaqueSource{src}), MaxTurns)
	switchT := turns + 1
	if b.PhaseSwitch != nil {
		switchT = int(math.Ceil(b.PhaseSwitch.AtFraction * float64(turns)))
	}
	context := tokenDraw(referenceDraw(&b.PromptTokens, opaqueSource{src}))
	out := []float64{float64(turns)}
	for turn := 1; turn <= turns; turn++ {
		src.Seed(seed, uint64(turn)|1<<40)
		toolTokens := tokenDraw(referenceDraw(&b.ToolTokens, opaqueSource{src}))
		tool := toolDuration(referenceDraw(&b.ToolSeconds, opaqueSource{src}))
		src.Seed(seed, uint64(turn))
		fan := &b.Fanout
		if turn >= switchT {
			fan = &b.PhaseSwitch.Fanout
		}
		n := countDraw(referenceDraw(fan, opaqueSource{src}), MaxFanout)
		turnOut := 0
		for range n {
			o := tokenDraw(referenceDraw(&b.OutputTokens, opaqueSource{src}))
			if b.MaxTokens > 0 {
				o = min(o, b.MaxTokens)
			}
			turnOut += o
			out = append(out, float64(context), float64(o), unit(src))
		}
		out = append(out, float64(tool))
		context = min(context+turnOut+toolTokens, maxContext)
	}
	return out
}

// TestAgentMatchesReference: an agent draws the reference loop's job, value
// for value, for behaviours of fixed and drawn distributions of each kind.
func TestAgentMatchesReference(t *testing.T) {
	behaviours := map[string]Behaviour{
		"single": SingleCall(400),
		"halves": {Turns: Fixed(2), Fanout: Fixed(3), PromptTokens: Fixed(100.5), OutputTokens: Fixed(20.5),
			ToolTokens: Fixed(7.5), ToolSeconds: Fixed(1.25), MaxTokens: 20},
		"drawn": {Turns: Dist{Kind: "pareto", Min: 2, Max: 30, Alpha: 1.3}, Fanout: Dist{Kind: "uniform", Min: 1, Max: 3},
			PromptTokens: Dist{Kind: "lognormal", Median: 3000, Sigma: 0.5}, OutputTokens: Dist{Kind: "exponential", Mean: 300},
			ToolTokens: Dist{Kind: "uniform", Min: 10, Max: 900}, ToolSeconds: Dist{Kind: "lognormal", Median: 8, Sigma: 1, Max: 600},
			PhaseSwitch: &PhaseSwitch{AtFraction: 0.5, Fanout: Fixed(4)}},
		"tools-half-drawn": {Turns: Fixed(4), Fanout: Fixed(2), PromptTokens: Fixed(100), OutputTokens: Fixed(30),
			ToolTokens: Dist{Kind: "lognormal", Median: 800, Sigma: 0.8, Max: 20000}, ToolSeconds: Fixed(3)},
		"tools-other-half": {Turns: Fixed(4), Fanout: Fixed(2), PromptTokens: Fixed(100), OutputTokens: Fixed(30),
			ToolTokens: Fixed(40), ToolSeconds: Dist{Kind: "lognormal", Median: 8, Sigma: 1, Max: 600}},
		"mixed": {Turns: Fixed(5), Fanout: Dist{Kind: "uniform", Min: 1, Max: 4}, PromptTokens: Fixed(500),
			OutputTokens: Dist{Kind: "lognormal", Median: 300, Sigma: 0.5}, ToolTokens: Fixed(50), ToolSeconds: Fixed(2),
			PhaseSwitch: &PhaseSwitch{AtFraction: 0.6, Fanout: Dist{Kind: "uniform", Min: 2, Max: 6}}, MaxTokens: 800},
	}
	for name, b := range behaviours {
		if err := b.Validate(name); err != nil {
			t.Fatal(err)
		}
		src := rand.NewPCG(0, 0)
		for seed := range uint64(200) {
			want := referenceAgent(&b, seed, src)
			var a Agent
			a.Start(&b, seed, src)
			got := []float64{float64(a.Turns())}
			for n, ok := a.NextTurn(src); ok; n, ok = a.NextTurn(src) {
				for range n {
					in, out, u := a.NextCall(src)
					got = append(got, float64(in), float64(out), u)
				}
				got = append(got, float64(a.EndTurn()))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s, seed %d: the job differs (-reference +agent):\n%s", name, seed, diff)
			}
		}
	}
}
