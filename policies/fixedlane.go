package policies

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/internal/ring"
)

// FixedLaneConfig configures the old design: dedicated lanes with fixed caps
// for named models, every other model sharing what is left of the global cap.
type FixedLaneConfig struct {
	// GlobalCap is the total number of jobs that may run at once.
	GlobalCap int `yaml:"global_cap" json:"global_cap"`
	// Lanes maps a model name to its dedicated cap, carved out of GlobalCap.
	Lanes map[string]int `yaml:"lanes" json:"lanes"`
}

// Validate checks the config against the model catalogue.
func (c FixedLaneConfig) Validate(models []string) error {
	if c.GlobalCap <= 0 {
		return field.Errorf("global_cap", "must be > 0, got %d", c.GlobalCap)
	}
	known := make(map[string]bool, len(models))
	for _, m := range models {
		known[m] = true
	}
	sum := 0
	for _, name := range slices.Sorted(maps.Keys(c.Lanes)) {
		cap := c.Lanes[name]
		path := fmt.Sprintf("lanes.%s", name)
		if !known[name] {
			return field.Errorf(path, "unknown model %q", name)
		}
		if cap <= 0 {
			return field.Errorf(path, "cap must be > 0, got %d", cap)
		}
		if cap > c.GlobalCap {
			return field.Errorf(path, "cap %d is above global_cap %d", cap, c.GlobalCap)
		}
		sum += cap
	}
	if sum > c.GlobalCap {
		return field.Errorf("lanes", "caps add up to %d, above global_cap %d", sum, c.GlobalCap)
	}
	return nil
}

// FixedLane is the baseline policy: first come first served within a lane, a
// job starting the moment its lane has a free slot.
type FixedLane struct {
	laneOf  []int // model → lane index; the shared lane is the last one
	caps    []int
	running []int
	queues  []ring.Ring[JobID]
	waiting int
	limits  []int
}

// NewFixedLane builds the baseline over the model catalogue.
func NewFixedLane(cfg FixedLaneConfig, models []string) (*FixedLane, error) {
	if err := cfg.Validate(models); err != nil {
		return nil, fmt.Errorf("fixed-lane: %w", err)
	}
	names := slices.Sorted(maps.Keys(cfg.Lanes))
	laneIndex := make(map[string]int, len(names))
	p := &FixedLane{laneOf: make([]int, len(models))}
	shared := cfg.GlobalCap
	for i, name := range names {
		laneIndex[name] = i
		p.caps = append(p.caps, cfg.Lanes[name])
		shared -= cfg.Lanes[name]
	}
	sharedLane := len(names)
	p.caps = append(p.caps, shared)
	p.running = make([]int, len(p.caps))
	p.queues = make([]ring.Ring[JobID], len(p.caps))
	p.limits = make([]int, len(models))
	for m, name := range models {
		lane, ok := laneIndex[name]
		if !ok {
			lane = sharedLane
		}
		p.laneOf[m] = lane
		p.limits[m] = p.caps[lane]
	}
	return p, nil
}

// TimeFree tells a caller that FixedLane reads no instant it is given
// (the time of a call, a job's Arrival): it may pass the zero time.
func (p *FixedLane) TimeFree() bool { return true }

func (p *FixedLane) Name() string     { return "fixed-lane" }
func (p *FixedLane) Trigger() Trigger { return Trigger{OnEvent: true} }
func (p *FixedLane) Waiting() int     { return p.waiting }

func (p *FixedLane) Enqueue(_ time.Time, job Job) {
	p.queues[p.laneOf[job.Model]].Push(job.ID)
	p.waiting++
}

func (p *FixedLane) Finished(_ time.Time, _ JobID, model ModelID) {
	lane := p.laneOf[model]
	if p.running[lane] == 0 {
		panic("fixed-lane: finish on a lane with nothing running")
	}
	p.running[lane]--
}

// Decide starts the head of every lane that has a free slot, while containers
// last. Lanes are visited in a fixed order, so a container shortage resolves
// the same way every run.
func (p *FixedLane) Decide(_ time.Time, state State, plan *Plan) {
	plan.Limits = p.limits
	if p.waiting == 0 { // no queue has a head to start (half the calls: one after each finish)
		return
	}
	free := state.FreeContainers()
	for lane := range p.queues {
		q := &p.queues[lane]
		for q.Len() > 0 && p.running[lane] < p.caps[lane] && free > 0 {
			plan.Start = append(plan.Start, q.Pop())
			p.running[lane]++
			p.waiting--
			free--
		}
	}
}
