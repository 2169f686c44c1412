package policies

import (
	"fmt"
	"math"
	"time"

	"github.com/evalsched/lab/internal/bitset"
	"github.com/evalsched/lab/internal/cacheline"
)

// Scheduler is the production policy: a job-level queue before container
// allocation, per-model limits steered by gateway queue depth, and weighted
// admission (tiers by weight, projects in turn, oldest first). See the
// package documentation for the algorithm.
//
// The parts live in their own files: config.go (SchedulerConfig),
// controller.go (the per-model limit), admission.go (who gets the slots),
// index.go with heap.go and internal/bitset (the waiting jobs), overrides.go
// (runtime tier overrides). This file wires them together.
//
// A Scheduler is not safe for concurrent use; a service serialises calls.
type Scheduler struct {
	cfg    SchedulerConfig
	ctl    controller
	models []modelState // indexed by ModelID
	limits []int        // models[i].limit, handed out as Plan.Limits
	// ran and hist hold the values of the models' running-count and
	// slow-start limit rings (tickRing)
	ran, hist []tickTile

	// Admission.
	share    float64
	rest     [maxTier + 2]float64 // rest[i] = (1-share)^i
	openList []ModelID            // this tick: models with a free slot and a waiting job
	eligBuf  []*tierNode

	// The waiting-job index.
	recs     []jobRec
	freeRec  int32 // head of the free list threaded through jobRec.hpos; noRec = none
	waiting  int
	queued   bitset.Set // models with waiting jobs
	tiers    [maxTier + 1]*tierNode
	active   []*tierNode // tiers with waiting jobs, highest priority first
	projects map[projKey]*projNode
	lanePool *lane     // free lists, threaded through next, so that
	projPool *projNode // dropping a lane or project in Decide never allocates

	// Runtime tier overrides.
	acctOv  map[string]Tier
	projOv  map[[2]string]Tier
	batchOv map[[3]string]Tier
}

// modelState is what the scheduler keeps per model. Every tick reads every
// model's, so what a tick touches comes first (here and in limitState):
// an idle model's tick then takes two cache lines (TestTickFieldsFirst)
// instead of one per field. Admission's fields, read of the models with
// waiting jobs alone, follow.
type modelState struct {
	running    int  // State.Running, read this tick
	waiting    int  // waiting jobs
	limitState      // the controller's part
	free       int  // slots left this tick
	open       bool // in Scheduler.openList
	openPos    int  // index in Scheduler.openList
	_          [48]byte
}

// NewScheduler builds the scheduler over the model catalogue; the ModelID of
// a model is its index in models.
func NewScheduler(cfg SchedulerConfig, models []string) (*Scheduler, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(models); err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	n := len(models)
	s := &Scheduler{
		cfg:      cfg,
		ctl:      newController(cfg),
		models:   cacheline.Slice[modelState](n),
		limits:   make([]int, n),
		share:    cfg.TierShare,
		openList: make([]ModelID, 0, n),
		projects: make(map[projKey]*projNode),
		freeRec:  noRec,
		acctOv:   make(map[string]Tier),
		projOv:   make(map[[2]string]Tier),
		batchOv:  make(map[[3]string]Tier),
	}
	s.ran, s.hist = tickTiles(n), tickTiles(n)
	for m, name := range models {
		s.models[m].limitState = newLimitState(cfg.ForModel(name))
		s.models[m].hold.halfLife = cfg.JobRateHold
		s.models[m].ran = column(s.ran, m, s.ctl.minute)
		s.models[m].rival.ss.hist = column(s.hist, m, 0)
		s.limits[m] = s.models[m].limit
	}
	if n > 0 { // room for every model, so that link never allocates for it
		s.queued.Add(n - 1)
		s.queued.Remove(n - 1)
	}
	for i := range s.rest {
		s.rest[i] = math.Pow(1-s.share, float64(i))
	}
	return s, nil
}

func (s *Scheduler) Name() string { return "scheduler" }

// TargetDepths implements DepthTargets: each model's target gateway depth.
func (s *Scheduler) TargetDepths() []float64 {
	out := make([]float64, len(s.models))
	for i := range s.models {
		out[i] = s.models[i].target
	}
	return out
}
func (s *Scheduler) Trigger() Trigger { return Trigger{Tick: s.cfg.Tick} }
func (s *Scheduler) Waiting() int     { return s.waiting }

// Config is the config the scheduler runs with, defaults applied.
func (s *Scheduler) Config() SchedulerConfig {
	c := s.cfg
	if c.Models != nil {
		c.Models = make(map[string]ModelLimits, len(s.cfg.Models))
		for k, v := range s.cfg.Models {
			c.Models[k] = v
		}
	}
	return c
}

// Limit is the current running-job limit of a model.
func (s *Scheduler) Limit(m ModelID) int { return s.models[m].limit }

// Depth is the depth reading the controller last acted on for a model
// (smoothed if smoothing is on); a stale reading is not recorded.
func (s *Scheduler) Depth(m ModelID) float64 { return s.models[m].depth }

// LastAction is what the controller did to a model's limit on the last tick.
func (s *Scheduler) LastAction(m ModelID) Action { return s.models[m].action }

// WaitingOn is the number of waiting jobs on a model.
func (s *Scheduler) WaitingOn(m ModelID) int { return s.models[m].waiting }

// WaitingInTier is the number of waiting jobs whose effective tier is t.
func (s *Scheduler) WaitingInTier(t Tier) int {
	if t < 1 || s.tiers[t] == nil {
		return 0
	}
	return s.tiers[t].waiting
}

// Admitted is the number of jobs started from tier t since the start.
func (s *Scheduler) Admitted(t Tier) int64 {
	if t < 1 || s.tiers[t] == nil {
		return 0
	}
	return s.tiers[t].admitted
}

// Finished is a no-op: running counts come from State on every tick, so the
// scheduler keeps no count of its own that could drift from the world's.
func (s *Scheduler) Finished(time.Time, JobID, ModelID) {}

// Enqueue adds a waiting job. A zero Arrival means "arrived now". A job whose
// tiers resolve to a value below 1 is treated as DefaultTier. The job's model
// must be in the catalogue; its ID must not be waiting already.
func (s *Scheduler) Enqueue(now time.Time, job Job) {
	if job.Model < 0 || int(job.Model) >= len(s.models) {
		panic(fmt.Sprintf("scheduler: job %d on model %d, outside the catalogue of %d", job.ID, job.Model, len(s.models)))
	}
	at := job.Arrival
	if at.IsZero() {
		at = now
	}
	ri := s.newRec()
	s.recs[ri] = jobRec{
		id:      job.ID,
		sec:     at.Unix(),
		nsec:    int32(at.Nanosecond()),
		model:   job.Model,
		live:    true,
		carried: [3]Tier{job.AccountTier, job.ProjectTier, job.BatchTier},
		account: job.Account,
		project: job.Project,
		batch:   job.Batch,
	}
	s.recs[ri].tier = s.tierOf(&s.recs[ri])
	s.link(ri)
}

// Decide runs one tick: first the controller moves each model's limit, then
// admission hands out the free slots. Plan.Limits is set to the scheduler's
// own slice of limits, valid until the next call; the caller must not modify it.
func (s *Scheduler) Decide(now time.Time, state State, plan *Plan) {
	containers := state.FreeContainers()
	s.control(now, state, containers)
	plan.Limits = s.limits
	s.admit(containers, plan)
}
