package sim

import (
	"testing"

	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/scenario/scenariotest"
)

// TestVariantEmptyOverlayRunsLikeBase: a variant with no overlay runs exactly
// as the base scenario with the same policy.
func TestVariantEmptyOverlayRunsLikeBase(t *testing.T) {
	sc := mustParse(t, scenariotest.Valid+scenariotest.VariantsBlock)
	v, err := sc.Variant("new")
	if err != nil {
		t.Fatal(err)
	}
	w1, err := Execute(sc, RunSpec{Policy: "scheduler", Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	w2, err := Execute(v.Scenario, RunSpec{Policy: v.Policy, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if w1.Counts() != w2.Counts() || w1.EventsProcessed() != w2.EventsProcessed() {
		t.Errorf("base %+v (%d events) vs variant %+v (%d events)", w1.Counts(), w1.EventsProcessed(), w2.Counts(), w2.EventsProcessed())
	}
}

// mustParse is the scenario text parsed, or the test stopped.
func mustParse(t *testing.T, text string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.ParseScenario("v.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
