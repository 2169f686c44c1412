package report

import (
	"testing"

	"github.com/evalsched/lab/results"
)

// TestReproducePolicies: compare --policy flags are given back in order,
// quoted for a shell.
func TestReproducePolicies(t *testing.T) {
	s := results.Summary{Seed: 2, Invocation: &results.Invocation{Command: "compare", Scenario: "default",
		Policies: []string{"fixed-lane", "exec:python3 ref.py scheduler"}}}
	want := "sim compare --scenario default --seed 2 --policy fixed-lane --policy 'exec:python3 ref.py scheduler'"
	if got := ReproduceCommand(s); got != want {
		t.Errorf("ReproduceCommand = %s, want %s", got, want)
	}
}
