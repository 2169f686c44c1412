package scenario

import "github.com/evalsched/lab/policies"

// The evaluation harness inspect_ai as a policy (policies.Inspect): a
// scenario's policies.inspect block sets max_samples and max_tasks; an
// unset max_samples is Inspect's default, the max_connections — here the
// largest in-flight limit of the scenario's models (their connection
// pools).
func init() {
	registerBuiltin("inspect", "inspect", func(s *Scenario, _ []string) (policies.Policy, error) {
		cfg := s.Policies.Inspect
		if cfg.MaxSamples == 0 {
			for _, m := range s.Models {
				cfg.MaxSamples = max(cfg.MaxSamples, m.InflightLimit)
			}
			if cfg.MaxSamples == 0 {
				cfg.MaxSamples = InspectDefaultMaxConnections
			}
		}
		return policies.NewInspect(cfg)
	})
}

// InspectDefaultMaxConnections is inspect_ai's default max_connections for
// the hosted providers (OpenAI, Anthropic, Google, …) before adaptive
// connections: DEFAULT_MAX_CONNECTIONS = 10 in src/inspect_ai/_util/constants.py
// (0.3.58 … 0.3.220, read 2026-12-06).
const InspectDefaultMaxConnections = 10
