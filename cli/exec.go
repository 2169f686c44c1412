package cli

import (
	"github.com/evalsched/lab/extpolicy"
	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/sim"
)

// execSettings is what the handshake of a policy in another process
// carries as settings: the scenario's settings of the built-in policies,
// defaults applied, for a process that runs one of them.
type execSettings struct {
	Scheduler policies.SchedulerConfig `json:"scheduler"`
	FixedLane policies.FixedLaneConfig `json:"fixed_lane"`
}

// The policy exec (exec:CMD): a policy in another process, speaking the
// policy protocol (docs/reference/policy-protocol.md); its block is
// policies.exec (extpolicy.Config).
func init() {
	scenario.RegisterConfigPolicy("exec", func(cfg extpolicy.Config, arg string, s *scenario.Scenario, models []string) (policies.Policy, error) {
		if arg != "" {
			words, err := extpolicy.Words(arg)
			if err != nil {
				return nil, err
			}
			cfg.Command = words
		}
		p, err := extpolicy.Start(cfg, extpolicy.Options{Models: models, Epoch: sim.Epoch,
			Settings: execSettings{Scheduler: s.Policies.Scheduler.WithDefaults(), FixedLane: s.Policies.FixedLane}})
		if err != nil {
			return nil, err
		}
		return p, nil
	})
}
