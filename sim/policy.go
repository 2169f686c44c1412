package sim

import (
	"fmt"
	"strings"

	"github.com/evalsched/lab/policies"
)

// PolicyNames lists the policies a scenario can be run with.
var PolicyNames = []string{"fixed-lane", "scheduler"}

// NewPolicy builds the named policy from the scenario's settings.
func NewPolicy(name string, s *Scenario) (policies.Policy, error) {
	models := s.Catalogue()
	switch name {
	case "fixed-lane":
		return policies.NewFixedLane(s.Policies.FixedLane, models)
	case "scheduler":
		return policies.NewScheduler(s.Policies.Scheduler, models)
	}
	return nil, fmt.Errorf("unknown policy %q (want %s)", name, strings.Join(PolicyNames, " or "))
}
