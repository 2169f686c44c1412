// Package largest is a scheduling policy kept outside the lab: each
// decision, the model with the most jobs waiting starts first, as many as
// its cap and the free containers allow, oldest first. Importing the
// package registers it with the lab as "largest-backlog", with its
// settings in a scenario's policies.largest-backlog block.
package largest

import (
	"fmt"
	"time"

	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/scenario"
)

// Config is the policies.largest-backlog block.
type Config struct {
	// MaxRunning caps the running jobs of every model (0 → 50).
	MaxRunning int `yaml:"max_running"`
	// Tick is the period of the decisions (0 → 10s).
	Tick time.Duration `yaml:"tick"`
}

// Validate is called by the lab on the decoded block; an error at a key
// (scenario.FieldErrorf) is reported at that key's line.
func (c Config) Validate([]string) error {
	if c.MaxRunning < 0 {
		return scenario.FieldErrorf("max_running", "must be >= 0 (0 = 50), got %d", c.MaxRunning)
	}
	return nil
}

func init() {
	scenario.RegisterConfigPolicy("largest-backlog", func(cfg Config, arg string, _ *scenario.Scenario, models []string) (policies.Policy, error) {
		if arg != "" {
			return nil, fmt.Errorf("largest-backlog takes no argument, got %q", arg)
		}
		return New(cfg, len(models)), nil
	})
}

// Policy is the largest-backlog-first policy.
type Policy struct {
	cfg    Config
	queues [][]policies.JobID // per model, oldest first
	limits []int
	order  []int
}

// New builds the policy over n models.
func New(cfg Config, n int) *Policy {
	if cfg.MaxRunning == 0 {
		cfg.MaxRunning = 50
	}
	if cfg.Tick == 0 {
		cfg.Tick = 10 * time.Second
	}
	p := &Policy{cfg: cfg, queues: make([][]policies.JobID, n), limits: make([]int, n), order: make([]int, n)}
	for m := range p.limits {
		p.limits[m] = cfg.MaxRunning
	}
	return p
}

func (p *Policy) Name() string                                         { return "largest-backlog" }
func (p *Policy) Trigger() policies.Trigger                            { return policies.Trigger{Tick: p.cfg.Tick} }
func (p *Policy) Finished(time.Time, policies.JobID, policies.ModelID) {}

func (p *Policy) Enqueue(_ time.Time, job policies.Job) {
	p.queues[job.Model] = append(p.queues[job.Model], job.ID)
}

func (p *Policy) Waiting() int {
	n := 0
	for _, q := range p.queues {
		n += len(q)
	}
	return n
}

// Decide visits the models by backlog, largest first (ties by model).
func (p *Policy) Decide(_ time.Time, state policies.State, plan *policies.Plan) {
	free := state.FreeContainers()
	for m := range p.order {
		p.order[m] = m
	}
	// insertion sort: stable, and cheap for a catalogue of hundreds
	for i := 1; i < len(p.order); i++ {
		for j := i; j > 0 && len(p.queues[p.order[j]]) > len(p.queues[p.order[j-1]]); j-- {
			p.order[j], p.order[j-1] = p.order[j-1], p.order[j]
		}
	}
	for _, m := range p.order {
		q := p.queues[m]
		n := min(len(q), max(p.cfg.MaxRunning-state.Running(policies.ModelID(m)), 0), free)
		plan.Start = append(plan.Start, q[:n]...)
		p.queues[m] = q[n:]
		free -= n
	}
	plan.Limits = p.limits
}
