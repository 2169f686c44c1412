package sim

import (
	"fmt"
	"strings"

	"github.com/evalsched/lab/policies"
)

// PolicyNames lists the policies a scenario can be run with.
var PolicyNames = []string{"fixed-lane", "scheduler"}

// NewPolicy builds the named policy from the scenario's settings.
// With policies.guards set, the policy wears the guards (policies.Guard).
func NewPolicy(name string, s *Scenario) (policies.Policy, error) {
	models := s.Catalogue()
	var p policies.Policy
	var err error
	switch name {
	case "fixed-lane":
		p, err = policies.NewFixedLane(s.Policies.FixedLane, models)
	case "scheduler":
		p, err = policies.NewScheduler(s.Policies.Scheduler, models)
	default:
		return nil, fmt.Errorf("unknown policy %q (want %s)", name, strings.Join(PolicyNames, " or "))
	}
	if err != nil || !s.Policies.Guards.Active() {
		return p, err
	}
	return policies.NewGuard(p, s.Policies.Guards, len(models)), nil
}
