package lab

import (
	"github.com/evalsched/lab/internal/yamltree"
	"go.yaml.in/yaml/v3"
)

// Goal is which way a tune objective or trade-off is better: a closed set,
// read strictly (an unknown word such as "minimise" is refused, not read
// as the default).
type Goal string

// The goals.
const (
	GoalMax    Goal = "max"
	GoalMin    Goal = "min"
	GoalTarget Goal = "target" // come closest to the goal's target value
)

// Goals lists the goals a file may name.
var Goals = []Goal{GoalMax, GoalMin, GoalTarget}

// UnmarshalYAML reads a goal, refusing any other word with the list.
func (g *Goal) UnmarshalYAML(n *yaml.Node) error {
	v, err := yamltree.EnumOf(n, Goals)
	*g = v
	return err
}

// Better reports whether a beats b under a max or min goal (a target
// goal compares misses: TuneGoal.Miss).
func (g Goal) Better(a, b float64) bool {
	if g == GoalMin {
		return a < b
	}
	return a > b
}

// ToleranceKind is how a gate check's limit is found: from the baseline's
// spread (relative, absolute, k_se; optionally with paired), per seed
// against that seed's own baseline value (paired alone), or a fixed
// threshold needing no baseline.
type ToleranceKind int

// The tolerance kinds.
const (
	TolSpread ToleranceKind = iota + 1
	TolPaired
	TolThreshold
)

func (k ToleranceKind) String() string {
	switch k {
	case TolSpread:
		return "spread"
	case TolPaired:
		return "paired"
	case TolThreshold:
		return "threshold"
	}
	return "none"
}
