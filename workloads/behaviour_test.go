package workloads

import (
	"math/rand/v2"
	"testing"
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
