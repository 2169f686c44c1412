package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/sim"
)

// The runs compare makes per seed, and the rule that a seed's runs are
// told apart by their names in the outputs.

// compareArms are the runs compare makes per seed: the named variants, in
// order (the first is the baseline), or the fixed-lane and scheduler pair.
func compareArms(sc *scenario.Scenario, o options) ([]sim.RunSpec, error) {
	variants := o.variants
	if len(o.policies) > 0 {
		if len(variants) > 0 || len(o.policies) < 2 {
			return nil, &usageError{err: fmt.Errorf("--policy: give at least two (the first is the baseline), and no --variant"), usage: o.usage}
		}
		var arms []sim.RunSpec
		for i, p := range o.policies {
			if slices.Contains(o.policies[:i], p) {
				return nil, &usageError{err: fmt.Errorf("--policy: %q given twice (each run is named by its policy)", p), usage: o.usage}
			}
			if !scenario.IsPolicy(p) {
				return nil, &usageError{err: fmt.Errorf("--policy: unknown %q (have %s)", p, strings.Join(scenario.PolicyNames(), ", ")), usage: o.usage}
			}
			if err := scenario.CheckPolicy(p, sc); err != nil {
				return nil, fmt.Errorf("--policy: %w", err)
			}
			arms = append(arms, sim.RunSpec{Policy: p})
		}
		return arms, nil
	}
	if len(variants) == 0 {
		return []sim.RunSpec{{Policy: "fixed-lane"}, {Policy: "scheduler"}}, nil
	}
	if len(variants) < 2 {
		have := "declares no variants"
		if names := sc.VariantNames(); len(names) > 0 {
			have = "has " + strings.Join(names, ", ")
		}
		return nil, &usageError{err: fmt.Errorf("--variant: give at least two (the first is the baseline); %s %s", sc.File(), have), usage: o.usage}
	}
	var arms []sim.RunSpec
	seen := map[string]bool{}
	for _, name := range variants {
		if seen[name] {
			return nil, &usageError{err: fmt.Errorf("--variant: %q given twice", name), usage: o.usage}
		}
		seen[name] = true
		v, err := sc.Variant(name)
		if err != nil {
			if !slices.Contains(sc.VariantNames(), name) {
				return nil, &usageError{err: fmt.Errorf("--variant: %w", err), usage: o.usage} // a bad flag value
			}
			return nil, err
		}
		if err := v.Scenario.SetBudget(o.budget, o.trace != ""); err != nil {
			return nil, fmt.Errorf("variant %s: %w", name, err)
		}
		if o.stderr != nil {
			warnScenario(o.stderr, v.Scenario)
		}
		arms = append(arms, sim.RunSpec{Policy: v.Policy, Variant: v})
	}
	return arms, nil
}

// distinctNames refuses two runs of one seed under one name: the outputs
// name a seed's runs by their names (an exec policy's is the one its hello
// gives), and sim report and quota-check refuse a folder where two share one.
func distinctNames(specs []sim.RunSpec, runs []results.Run) error {
	for i := range runs {
		for j := range i {
			if specs[j].Seed == specs[i].Seed && runs[j].Policy == runs[i].Policy {
				return fmt.Errorf("%s and %s: both runs are named %q (a policy's own name): the outputs could not tell them apart", specs[j].Label(), specs[i].Label(), runs[i].Policy)
			}
		}
	}
	return nil
}
