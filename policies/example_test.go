package policies_test

import (
	"fmt"
	"time"

	"github.com/evalsched/lab/policies"
)

// world is the smallest State: what a service would read from its own
// bookkeeping and its gateway's metrics.
type world struct {
	running []int
	depth   []int
	asOf    time.Time
	free    int
}

func (w world) Running(m policies.ModelID) int { return w.running[m] }
func (w world) GatewayDepth(m policies.ModelID) (int, time.Time) {
	return w.depth[m], w.asOf
}
func (w world) FreeContainers() int { return w.free }

func ExampleScheduler() {
	models := []string{"gpt-5.5", "claude-opus-4.8"}
	cfg := policies.SchedulerConfig{
		TargetDepth:  8,
		InitialLimit: 2,
		Models: map[string]policies.ModelLimits{
			"claude-opus-4.8": {InitialLimit: 3},
		},
	}
	s, err := policies.NewScheduler(cfg, models)
	if err != nil {
		panic(err)
	}
	now := time.Date(2025, 9, 30, 12, 0, 0, 0, time.UTC)
	// A nightly batch of four jobs on gpt-5.5, then a customer delivery of
	// two jobs, one per model, from an account pinned to tier 1.
	for id := policies.JobID(1); id <= 4; id++ {
		s.Enqueue(now, policies.Job{ID: id, Account: "lab", Project: "nightly", Model: 0, Arrival: now})
	}
	later := now.Add(5 * time.Minute)
	for id := policies.JobID(5); id <= 6; id++ {
		s.Enqueue(later, policies.Job{ID: id, Account: "customer", AccountTier: 1, Project: "delivery",
			Model: policies.ModelID(id % 2), Arrival: later})
	}

	// gpt-5.5 runs 2 jobs, at its limit, with an empty gateway queue: the
	// limit is binding, so the slow start raises it to 3 and one slot frees
	// up. Claude has
	// all 3 of its slots free. The delivery's tier takes its turn first, its
	// jobs oldest (then lowest ID) first; the gpt-5.5 slot goes to it, and
	// the batch has nothing on Claude.
	w := world{running: []int{2, 0}, depth: []int{0, 0}, asOf: later, free: 10}
	var plan policies.Plan
	s.Decide(later, w, &plan)
	fmt.Println("start:", plan.Start)
	fmt.Println("limits:", plan.Limits)
	fmt.Println("still waiting:", s.Waiting())
	// Output:
	// start: [5 6]
	// limits: [3 3]
	// still waiting: 4
}

func ExampleSchedulerConfig_Validate() {
	cfg := policies.SchedulerConfig{
		Models: map[string]policies.ModelLimits{"gpt-5.5": {MinLimit: 3, MaxLimit: 2}},
	}
	fmt.Println(cfg.Validate([]string{"gpt-5.5"}))
	// Output: models.gpt-5.5.min_limit: must be <= max_limit (3 > 2)
}

func ExampleSchedulerConfig_WithDefaults() {
	// A scenario sets only what it changes; the rest is filled in.
	cfg := policies.SchedulerConfig{TargetDepth: 20, StepMode: policies.StepMultiplicative}.WithDefaults()
	fmt.Printf("tick %v, target %d, limits %d..%d from %d, %s ×%g, stale after %v, tier share %g\n",
		cfg.Tick, cfg.TargetDepth, cfg.MinLimit, cfg.MaxLimit, cfg.InitialLimit, cfg.StepMode, cfg.Factor,
		cfg.StaleAfter, cfg.TierShare)
	// Output: tick 10s, target 20, limits 1..10000 from 4, multiplicative ×1.25, stale after 30s, tier share 0.8
}
