package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/evalsched/lab/policies"
)

// PolicyFactory builds a policy from a scenario's settings and model
// catalogue.
type PolicyFactory func(s *Scenario, models []string) (policies.Policy, error)

// registry maps a policy name to its factory, in registration order.
var registry = struct {
	names     []string
	factories map[string]PolicyFactory
}{factories: map[string]PolicyFactory{}}

// RegisterPolicy makes a policy available by name to scenarios, variants,
// sweeps and the CLI. It panics on an empty or repeated name: registration
// happens at start-up, and two policies under one name would make a run
// ambiguous.
func RegisterPolicy(name string, f PolicyFactory) {
	if name == "" || f == nil {
		panic("scenario.RegisterPolicy: empty name or nil factory")
	}
	if _, dup := registry.factories[name]; dup {
		panic(fmt.Sprintf("scenario.RegisterPolicy: policy %q registered twice", name))
	}
	registry.names = append(registry.names, name)
	registry.factories[name] = f
}

func init() {
	RegisterPolicy("fixed-lane", func(s *Scenario, models []string) (policies.Policy, error) {
		return policies.NewFixedLane(s.Policies.FixedLane, models)
	})
	RegisterPolicy("scheduler", func(s *Scenario, models []string) (policies.Policy, error) {
		return policies.NewScheduler(s.Policies.Scheduler, models)
	})
}

// PolicyNames lists the registered policies, in registration order.
func PolicyNames() []string { return slices.Clone(registry.names) }

// IsPolicy reports whether name is a registered policy.
func IsPolicy(name string) bool {
	_, ok := registry.factories[name]
	return ok
}

// NewPolicy builds the named policy from the scenario's settings.
// With policies.guards set, the policy wears the guards (policies.Guard).
func NewPolicy(name string, s *Scenario) (policies.Policy, error) {
	f, ok := registry.factories[name]
	if !ok {
		return nil, fmt.Errorf("unknown policy %q (want %s)", name, strings.Join(registry.names, " or "))
	}
	models := s.Catalogue()
	p, err := f(s, models)
	if err != nil || !s.Policies.Guards.Active() {
		return p, err
	}
	return policies.NewGuard(p, s.Policies.Guards, len(models)), nil
}
