package policies

import (
	"time"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/internal/ring"
)

// InspectConfig is the evaluation harness inspect_ai's own admission of
// samples: each task (a job's Project) runs at most MaxSamples of its
// samples at once, and at most MaxTasks tasks run at once in one process.
//
// Sources (inspect_ai, read 2026-12-06): src/inspect_ai/_eval/task/run.py
// create_sample_semaphore (0.3.58 … 0.3.241): max_samples, else the model's
// max_connections, one semaphore per task; the samples wait on it in the
// order they were created (epoch-major, then dataset order), a FIFO
// anyio/asyncio semaphore. src/inspect_ai/_eval/run.py: max_tasks bounds
// the tasks one process runs at once, started in the order given.
type InspectConfig struct {
	// MaxSamples is each task's bound on running samples; 0: Inspect's
	// default, the model's max_connections (the caller resolves it).
	MaxSamples int `yaml:"max_samples" json:"max_samples"`
	// MaxTasks bounds the tasks running at once; 0: no bound.
	MaxTasks int `yaml:"max_tasks" json:"max_tasks"`
	// FollowPool, if > 0, makes each task's bound its model's in-flight
	// limit now plus FollowPool, when the State offers InflightLimits:
	// inspect_ai's DynamicSampleLimiter under adaptive connections follows
	// its model's controller at concurrency + BUFFER (5) (_eval/task/run.py
	// create_sample_semaphore, design/adaptive-concurrency.md, 0.3.221 …
	// 0.3.241). MaxSamples still bounds it where the State offers none.
	FollowPool int `yaml:"follow_pool" json:"follow_pool,omitempty"`
}

// Validate checks the config.
func (c InspectConfig) Validate([]string) error {
	if c.MaxSamples < 0 {
		return field.Errorf("max_samples", "must be >= 0 (0: the max_connections), got %d", c.MaxSamples)
	}
	if c.FollowPool < 0 {
		return field.Errorf("follow_pool", "must be >= 0 (0: a fixed max_samples), got %d", c.FollowPool)
	}
	if c.MaxTasks < 0 {
		return field.Errorf("max_tasks", "must be >= 0 (0: no bound), got %d", c.MaxTasks)
	}
	return nil
}

// Inspect is the harness as a policy: samples (jobs) start in arrival order
// within their task, under the task's MaxSamples, in tasks admitted in the
// order they first appear, at most MaxTasks at a time. A task stays
// admitted until it has no waiting and no running sample. Containers are
// the caller's: none starts without a free one.
type Inspect struct {
	cfg     InspectConfig
	tasks   []inspectTask
	index   map[string]int32 // project → task
	taskOf  map[JobID]int32
	active  int
	waiting int
}

type inspectTask struct {
	queue          ring.Ring[JobID]
	running        int
	model          ModelID // its first sample's: the pool a followed bound reads
	admitted, done bool
}

// NewInspect builds the harness policy.
func NewInspect(cfg InspectConfig) (*Inspect, error) {
	if err := cfg.Validate(nil); err != nil {
		return nil, err
	}
	if cfg.MaxSamples == 0 {
		return nil, field.Errorf("max_samples", "unresolved: the caller sets Inspect's default (max_connections)")
	}
	return &Inspect{cfg: cfg, index: map[string]int32{}, taskOf: map[JobID]int32{}}, nil
}

// Name implements Policy.
func (p *Inspect) Name() string { return "inspect" }

// Trigger implements Policy: a decision after every arrival and finish.
func (p *Inspect) Trigger() Trigger { return Trigger{OnEvent: true} }

// Waiting implements Policy.
func (p *Inspect) Waiting() int { return p.waiting }

// Enqueue implements Policy.
func (p *Inspect) Enqueue(_ time.Time, job Job) {
	t, ok := p.index[job.Project]
	if !ok {
		t = int32(len(p.tasks))
		p.index[job.Project] = t
		p.tasks = append(p.tasks, inspectTask{model: job.Model})
	}
	p.tasks[t].queue.Push(job.ID)
	p.taskOf[job.ID] = t
	p.waiting++
}

// Finished implements Policy.
func (p *Inspect) Finished(_ time.Time, id JobID, _ ModelID) {
	t, ok := p.taskOf[id]
	if !ok {
		return
	}
	delete(p.taskOf, id)
	task := &p.tasks[t]
	task.running--
	if task.running == 0 && task.queue.Len() == 0 && task.admitted {
		task.admitted, task.done = false, true
		p.active--
	}
}

// Decide implements Policy: admit tasks in order while MaxTasks allows,
// then start each admitted task's samples in order while its MaxSamples
// and the free containers allow.
func (p *Inspect) Decide(_ time.Time, state State, plan *Plan) {
	free := state.FreeContainers()
	limits, follow := state.(InflightLimits)
	follow = follow && p.cfg.FollowPool > 0
	for i := range p.tasks {
		t := &p.tasks[i]
		if !t.admitted && t.queue.Len() > 0 && (p.cfg.MaxTasks == 0 || p.active < p.cfg.MaxTasks) {
			t.admitted, t.done = true, false
			p.active++
		}
		bound := p.cfg.MaxSamples
		if follow {
			bound = limits.InflightLimit(t.model) + p.cfg.FollowPool
		}
		for t.admitted && free > 0 && t.running < bound && t.queue.Len() > 0 {
			plan.Start = append(plan.Start, t.queue.Pop())
			t.running++
			p.waiting--
			free--
		}
	}
}

// Running reports the task's running samples (for tests and tracing).
func (p *Inspect) Running(project string) int {
	if t, ok := p.index[project]; ok {
		return p.tasks[t].running
	}
	return 0
}

// Admitted is the number of tasks admitted now.
func (p *Inspect) Admitted() int { return p.active }
