package policies

import (
	"fmt"
	"math"
	"math/bits"
	"time"
)

// StepMode is how the concurrency controller moves a limit by one step.
type StepMode string

const (
	// StepAdditive moves a limit by Step jobs.
	StepAdditive StepMode = "additive"
	// StepMultiplicative multiplies a limit by Factor to raise it and divides
	// it by Factor to lower it, rounding to the nearest job and moving it by
	// at least one job either way.
	StepMultiplicative StepMode = "multiplicative"
)

// Built-in defaults, used where a config leaves a field at its zero value.
const (
	DefaultSchedulerTick  = 10 * time.Second
	DefaultTargetDepth    = 8
	DefaultMinLimit       = 1
	DefaultMaxLimit       = 10000
	DefaultInitialLimit   = 4
	DefaultStep           = 1
	DefaultFactor         = 1.25
	DefaultTierShare      = 0.8
	defaultStaleAfterTick = 3 // stale_after defaults to this many ticks
)

// SchedulerConfig configures the production scheduler. It is meant to be
// loaded from YAML or JSON; a field left at its zero value means "use the
// default", so a scenario sets only what it changes. WithDefaults spells the
// defaults out; per-model fields left at zero inherit the global ones.
//
// Durations are time.Duration: a string such as "10s" in YAML, nanoseconds in
// JSON.
type SchedulerConfig struct {
	// Tick is the period of Decide (0 → 10s). The controller moves each
	// limit at most one step per tick.
	Tick time.Duration `yaml:"tick" json:"tick"`
	// TargetDepth is the gateway queue depth (calls waiting for the model)
	// the controller steers to (0 → 8; must be ≥ 1).
	TargetDepth int `yaml:"target_depth" json:"target_depth"`
	// DepthTolerance widens the hold band above the target: the limit is
	// lowered only when the depth exceeds TargetDepth+DepthTolerance
	// (0 → no band: lower on anything above the target).
	DepthTolerance int `yaml:"depth_tolerance" json:"depth_tolerance"`
	// MinLimit and MaxLimit bound every limit (0 → 1 and 10000).
	MinLimit int `yaml:"min_limit" json:"min_limit"`
	MaxLimit int `yaml:"max_limit" json:"max_limit"`
	// InitialLimit is every limit at start (0 → 4). A model inheriting it
	// gets it clamped into that model's [min_limit, max_limit].
	InitialLimit int `yaml:"initial_limit" json:"initial_limit"`
	// StepMode is "additive" (the default when empty) or "multiplicative".
	StepMode StepMode `yaml:"step_mode" json:"step_mode"`
	// Step is the additive step in jobs (0 → 1).
	Step int `yaml:"step" json:"step"`
	// Factor is the multiplicative step, > 1 (0 → 1.25).
	Factor float64 `yaml:"factor" json:"factor"`
	// Smoothing is the weight alpha of an exponentially weighted moving
	// average of the depth readings, in [0, 1]: 0 or 1 means no smoothing.
	Smoothing float64 `yaml:"smoothing" json:"smoothing"`
	// StaleAfter: a depth reading taken longer than this before now is
	// stale, and the controller holds (0 → 3 × Tick).
	StaleAfter time.Duration `yaml:"stale_after" json:"stale_after"`
	// TierShare is the share of the slots left to it that the highest
	// backlogged tier takes, in (0, 1] (0 → 0.8; 1 means strict priority).
	TierShare float64 `yaml:"tier_share" json:"tier_share"`
	// Models overrides the limits and target per model name.
	Models map[string]ModelLimits `yaml:"models,omitempty" json:"models,omitempty"`
}

// ModelLimits overrides the global controller settings for one model. A zero
// field inherits the global value.
type ModelLimits struct {
	TargetDepth  int `yaml:"target_depth,omitempty" json:"target_depth,omitempty"`
	MinLimit     int `yaml:"min_limit,omitempty" json:"min_limit,omitempty"`
	MaxLimit     int `yaml:"max_limit,omitempty" json:"max_limit,omitempty"`
	InitialLimit int `yaml:"initial_limit,omitempty" json:"initial_limit,omitempty"`
}

// DefaultSchedulerConfig is the config with every default spelled out.
func DefaultSchedulerConfig() SchedulerConfig {
	return SchedulerConfig{}.WithDefaults()
}

// WithDefaults returns c with every zero global field replaced by its default.
// Per-model overrides are left as they are (zero = inherit); ForModel
// resolves them. Negative values are kept, for Validate to report.
func (c SchedulerConfig) WithDefaults() SchedulerConfig {
	if c.Tick == 0 {
		c.Tick = DefaultSchedulerTick
	}
	if c.TargetDepth == 0 {
		c.TargetDepth = DefaultTargetDepth
	}
	if c.MinLimit == 0 {
		c.MinLimit = DefaultMinLimit
	}
	if c.MaxLimit == 0 {
		c.MaxLimit = DefaultMaxLimit
	}
	if c.InitialLimit == 0 {
		c.InitialLimit = min(max(DefaultInitialLimit, c.MinLimit), c.MaxLimit)
	}
	if c.StepMode == "" {
		c.StepMode = StepAdditive
	}
	if c.Step == 0 {
		c.Step = DefaultStep
	}
	if c.Factor == 0 {
		c.Factor = DefaultFactor
	}
	if c.StaleAfter == 0 && c.Tick > 0 {
		c.StaleAfter = defaultStaleAfterTick * c.Tick
	}
	if c.TierShare == 0 {
		c.TierShare = DefaultTierShare
	}
	return c
}

// ForModel resolves the effective settings of one model: the model's own
// overrides over the global values over the defaults. An inherited initial
// limit is clamped into the model's range; an explicit one is not (Validate
// reports it).
func (c SchedulerConfig) ForModel(name string) ModelLimits {
	c = c.WithDefaults()
	o := c.Models[name]
	r := ModelLimits{TargetDepth: c.TargetDepth, MinLimit: c.MinLimit, MaxLimit: c.MaxLimit}
	if o.TargetDepth != 0 {
		r.TargetDepth = o.TargetDepth
	}
	if o.MinLimit != 0 {
		r.MinLimit = o.MinLimit
	}
	if o.MaxLimit != 0 {
		r.MaxLimit = o.MaxLimit
	}
	if o.InitialLimit != 0 {
		r.InitialLimit = o.InitialLimit
	} else {
		r.InitialLimit = min(max(c.InitialLimit, r.MinLimit), r.MaxLimit)
	}
	return r
}

// Validate checks the config, with defaults applied, against the model
// catalogue. Errors name the field at fault, e.g.
// "models.gpt-5.5.min_limit: must be <= max_limit (3 > 2)".
func (c SchedulerConfig) Validate(models []string) error {
	c = c.WithDefaults()
	if c.Tick < 0 {
		return fieldError("tick", "must be > 0, got %v", c.Tick)
	}
	if c.TargetDepth < 1 {
		return fieldError("target_depth", "must be >= 1, got %d", c.TargetDepth)
	}
	if c.DepthTolerance < 0 {
		return fieldError("depth_tolerance", "must be >= 0, got %d", c.DepthTolerance)
	}
	if c.MinLimit < 1 {
		return fieldError("min_limit", "must be >= 1, got %d", c.MinLimit)
	}
	if c.MaxLimit < 1 {
		return fieldError("max_limit", "must be >= 1, got %d", c.MaxLimit)
	}
	if c.MinLimit > c.MaxLimit {
		return fieldError("min_limit", "must be <= max_limit (%d > %d)", c.MinLimit, c.MaxLimit)
	}
	if c.InitialLimit < c.MinLimit || c.InitialLimit > c.MaxLimit {
		return fieldError("initial_limit", "must be within [min_limit, max_limit] = [%d, %d], got %d",
			c.MinLimit, c.MaxLimit, c.InitialLimit)
	}
	switch c.StepMode {
	case StepAdditive, StepMultiplicative:
	default:
		return fieldError("step_mode", "must be %q or %q, got %q", StepAdditive, StepMultiplicative, c.StepMode)
	}
	if c.Step < 1 {
		return fieldError("step", "must be >= 1, got %d", c.Step)
	}
	if !(c.Factor > 1) || math.IsInf(c.Factor, 0) {
		return fieldError("factor", "must be > 1, got %g", c.Factor)
	}
	if !(c.Smoothing >= 0 && c.Smoothing <= 1) {
		return fieldError("smoothing", "must be within [0, 1] (0 or 1 = off), got %g", c.Smoothing)
	}
	if c.StaleAfter < 0 {
		return fieldError("stale_after", "must be > 0, got %v", c.StaleAfter)
	}
	if !(c.TierShare > 0 && c.TierShare <= 1) {
		return fieldError("tier_share", "must be within (0, 1], got %g", c.TierShare)
	}
	known := make(map[string]bool, len(models))
	for _, m := range models {
		known[m] = true
	}
	for _, name := range sortedKeys(c.Models) {
		o := c.Models[name]
		p := "models." + name
		if !known[name] {
			return fieldError(p, "unknown model %q", name)
		}
		for _, f := range []struct {
			name string
			v    int
		}{{"target_depth", o.TargetDepth}, {"min_limit", o.MinLimit}, {"max_limit", o.MaxLimit}, {"initial_limit", o.InitialLimit}} {
			if f.v < 0 {
				return fieldError(p+"."+f.name, "must be >= 1 (0 = inherit), got %d", f.v)
			}
		}
		r := c.ForModel(name)
		if r.MinLimit > r.MaxLimit {
			return fieldError(p+".min_limit", "must be <= max_limit (%d > %d)", r.MinLimit, r.MaxLimit)
		}
		if r.InitialLimit < r.MinLimit || r.InitialLimit > r.MaxLimit {
			return fieldError(p+".initial_limit", "must be within [min_limit, max_limit] = [%d, %d], got %d",
				r.MinLimit, r.MaxLimit, r.InitialLimit)
		}
	}
	return nil
}

// Action is what the concurrency controller did to a model's limit on the
// last tick.
type Action int8

const (
	// ActionHold: the depth was within the hold band.
	ActionHold Action = iota
	// ActionRaise: below target, jobs waiting, limit binding.
	ActionRaise
	// ActionLower: above the target (plus tolerance).
	ActionLower
	// ActionNotBinding: below target, but raising would start nothing: no
	// job of the model was waiting, or the limit was not what stopped starts.
	ActionNotBinding
	// ActionStale: the depth reading was stale (or never taken).
	ActionStale
	// ActionBelowRunning: above target, but the limit is already below the
	// running count: no job starts either way, and lowering further would
	// only dig a hole the limit must later climb out of (wind-down).
	ActionBelowRunning
)

var actionNames = [...]string{"hold", "raise", "lower", "not-binding", "stale", "below-running"}

func (a Action) String() string {
	if int(a) < len(actionNames) && a >= 0 {
		return actionNames[a]
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// Scheduler is the production policy: a job-level queue before container
// allocation, per-model limits steered by gateway queue depth, and weighted
// admission (tiers by weight, projects in turn, oldest first). See the
// package documentation for the algorithm.
//
// A Scheduler is not safe for concurrent use; a service serialises calls.
type Scheduler struct {
	cfg       SchedulerConfig
	share     float64
	smoothing float64 // 0 = off
	mult      bool
	tolerance float64

	// Controller state, per model.
	limits   []int
	target   []float64
	minL     []int
	maxL     []int
	depth    []float64 // last reading used (smoothed if configured)
	haveEWMA []bool
	lastAsOf []time.Time
	action   []Action

	// Admission state, per model.
	running  []int // State.Running, read this tick
	free     []int // model slots left this tick
	waitM    []int
	isOpen   []bool    // in openList
	openPos  []int     // index in openList
	openList []ModelID // this tick: models with a free slot and a waiting job

	recs    []jobRec
	freeRec int32 // head of the free list threaded through jobRec.hpos; -1 = none
	waiting int

	tiers    [maxTier + 1]*tierNode
	active   []*tierNode // tiers with waiting jobs, highest priority first
	eligBuf  []*tierNode
	rest     [maxTier + 2]float64 // rest[i] = (1-share)^i
	projects map[projKey]*projNode
	lanePool *lane     // free lists, threaded through next, so that
	projPool *projNode // dropping a lane or project in Decide never allocates
	acctOv   map[string]Tier
	projOv   map[[2]string]Tier
	batchOv  map[[3]string]Tier
}

const maxTier = math.MaxInt8

type jobRec struct {
	id      JobID
	sec     int64 // arrival, Unix seconds
	nsec    int32 // and nanoseconds
	hpos    int32 // position in lane.h; next free record when not live
	model   ModelID
	tier    Tier
	live    bool
	carried [3]Tier // account, project, batch tiers as enqueued
	lane    *lane
	account string
	project string
	batch   string
}

// lane holds the waiting jobs of one project in one tier on one model, as a
// binary heap ordered oldest first (arrival, then job ID).
type lane struct {
	proj  *projNode
	model ModelID
	h     []int32 // indices into Scheduler.recs
	ppos  int32   // index in proj.lanes
	next  *lane   // next free lane, while in the pool
}

type projKey struct {
	tier             Tier
	account, project string
}

// projNode is a project within one tier: the unit that takes turns.
type projNode struct {
	key     projKey
	tier    *tierNode
	lanes   []*lane
	slot    int // position in tier.ring
	waiting int
	next    *projNode // next free node, while in the pool
}

type tierNode struct {
	tier     Tier
	ring     []*projNode // turn order; nil = free slot
	freeSlot []int
	cursor   int // ring position whose turn is next
	// byModel[m] holds the ring positions of the projects with jobs on
	// model m in this tier; lanesOn[m] counts them.
	byModel []bitset
	lanesOn []int32
	// openN is the number of models in openList with jobs in this tier:
	// the tier can use a slot when it is positive.
	openN    int
	waiting  int
	credit   float64
	admitted int64
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
		cfg:       cfg,
		share:     cfg.TierShare,
		mult:      cfg.StepMode == StepMultiplicative,
		tolerance: float64(cfg.DepthTolerance),
		limits:    make([]int, n),
		target:    make([]float64, n),
		minL:      make([]int, n),
		maxL:      make([]int, n),
		depth:     make([]float64, n),
		haveEWMA:  make([]bool, n),
		lastAsOf:  make([]time.Time, n),
		action:    make([]Action, n),
		running:   make([]int, n),
		free:      make([]int, n),
		waitM:     make([]int, n),
		isOpen:    make([]bool, n),
		openPos:   make([]int, n),
		openList:  make([]ModelID, 0, n),
		projects:  make(map[projKey]*projNode),
		freeRec:   -1,
		acctOv:    make(map[string]Tier),
		projOv:    make(map[[2]string]Tier),
		batchOv:   make(map[[3]string]Tier),
	}
	if cfg.Smoothing > 0 && cfg.Smoothing < 1 {
		s.smoothing = cfg.Smoothing
	}
	for m, name := range models {
		r := cfg.ForModel(name)
		s.limits[m] = r.InitialLimit
		s.target[m] = float64(r.TargetDepth)
		s.minL[m] = r.MinLimit
		s.maxL[m] = r.MaxLimit
	}
	for i := range s.rest {
		s.rest[i] = math.Pow(1-s.share, float64(i))
	}
	return s, nil
}

func (s *Scheduler) Name() string     { return "scheduler" }
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
func (s *Scheduler) Limit(m ModelID) int { return s.limits[m] }

// Depth is the depth reading the controller last acted on for a model
// (smoothed if smoothing is on); a stale reading is not recorded.
func (s *Scheduler) Depth(m ModelID) float64 { return s.depth[m] }

// LastAction is what the controller did to a model's limit on the last tick.
func (s *Scheduler) LastAction(m ModelID) Action { return s.action[m] }

// WaitingOn is the number of waiting jobs on a model.
func (s *Scheduler) WaitingOn(m ModelID) int { return s.waitM[m] }

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
	if job.Model < 0 || int(job.Model) >= len(s.limits) {
		panic(fmt.Sprintf("scheduler: job %d on model %d, outside the catalogue of %d", job.ID, job.Model, len(s.limits)))
	}
	at := job.Arrival
	if at.IsZero() {
		at = now
	}
	var ri int32
	if s.freeRec >= 0 {
		ri = s.freeRec
		s.freeRec = s.recs[ri].hpos
	} else {
		s.recs = append(s.recs, jobRec{})
		ri = int32(len(s.recs) - 1)
	}
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

// SetAccountTier overrides, for waiting and future jobs of the account, the
// tier the jobs carried at the account level; t = 0 removes the override.
// Inheritance is unchanged: a project or batch that sets its own tier keeps
// it, everything that inherits from the account moves. It costs one pass over
// the waiting jobs: an operator action, not a per-tick one.
func (s *Scheduler) SetAccountTier(account string, t Tier) {
	setOverride(s.acctOv, account, t)
	s.retier(func(r *jobRec) bool { return r.account == account })
}

// SetProjectTier is SetAccountTier for one project of an account.
func (s *Scheduler) SetProjectTier(account, project string, t Tier) {
	setOverride(s.projOv, [2]string{account, project}, t)
	s.retier(func(r *jobRec) bool { return r.account == account && r.project == project })
}

// SetBatchTier is SetAccountTier for one batch of a project.
func (s *Scheduler) SetBatchTier(account, project, batch string, t Tier) {
	setOverride(s.batchOv, [3]string{account, project, batch}, t)
	s.retier(func(r *jobRec) bool {
		return r.account == account && r.project == project && r.batch == batch
	})
}

func setOverride[K comparable](m map[K]Tier, k K, t Tier) {
	if t <= 0 {
		delete(m, k)
		return
	}
	m[k] = t
}

func (s *Scheduler) retier(match func(*jobRec) bool) {
	for i := range s.recs {
		r := &s.recs[i]
		if !r.live || !match(r) {
			continue
		}
		if t := s.tierOf(r); t != r.tier {
			s.unlink(int32(i))
			r.tier = t
			s.link(int32(i))
		}
	}
}

// tierOf resolves a job's effective tier: the carried tiers with any
// runtime overrides applied, then inheritance as in Job.EffectiveTier.
func (s *Scheduler) tierOf(r *jobRec) Tier {
	j := Job{AccountTier: r.carried[0], ProjectTier: r.carried[1], BatchTier: r.carried[2]}
	if len(s.acctOv) > 0 {
		if t, ok := s.acctOv[r.account]; ok {
			j.AccountTier = t
		}
	}
	if len(s.projOv) > 0 {
		if t, ok := s.projOv[[2]string{r.account, r.project}]; ok {
			j.ProjectTier = t
		}
	}
	if len(s.batchOv) > 0 {
		if t, ok := s.batchOv[[3]string{r.account, r.project, r.batch}]; ok {
			j.BatchTier = t
		}
	}
	t := j.EffectiveTier()
	if t < 1 {
		t = DefaultTier
	}
	return t
}

// Decide runs one tick: first the controller moves each model's limit, then
// admission hands out the free slots. Plan.Limits is set to the scheduler's
// own slice of limits, valid until the next call; the caller must not modify it.
func (s *Scheduler) Decide(now time.Time, state State, plan *Plan) {
	containers := state.FreeContainers()
	s.control(now, state, containers)
	plan.Limits = s.limits
	s.openModels()
	for containers > 0 {
		t := s.pickTier()
		if t == nil {
			break
		}
		p := s.pickProject(t)
		t.cursor = p.slot + 1
		ri := s.oldestOpen(p)
		r := &s.recs[ri]
		m := r.model
		plan.Start = append(plan.Start, r.id)
		t.admitted++
		s.unlink(ri)
		r.live = false
		r.lane = nil
		r.account, r.project, r.batch = "", "", ""
		r.hpos, s.freeRec = s.freeRec, ri
		containers--
		s.free[m]--
		if s.free[m] == 0 || s.waitM[m] == 0 {
			s.closeModel(m)
		}
	}
}

// openModels starts a tick's admission: a model is open while it has a free
// slot and a waiting job; each tier counts its open models.
func (s *Scheduler) openModels() {
	for _, m := range s.openList {
		s.isOpen[m] = false
	}
	s.openList = s.openList[:0]
	for i := range s.limits {
		f := max(s.limits[i]-s.running[i], 0)
		s.free[i] = f
		if f > 0 && s.waitM[i] > 0 {
			s.isOpen[i] = true
			s.openPos[i] = len(s.openList)
			s.openList = append(s.openList, ModelID(i))
		}
	}
	for _, t := range s.active {
		t.openN = 0
		for _, m := range s.openList {
			if t.lanesOn[m] > 0 {
				t.openN++
			}
		}
	}
}

// closeModel takes a model out of this tick's admission.
func (s *Scheduler) closeModel(m ModelID) {
	if !s.isOpen[m] {
		return
	}
	s.isOpen[m] = false
	i, last := s.openPos[m], len(s.openList)-1
	moved := s.openList[last]
	s.openList[i] = moved
	s.openPos[moved] = i
	s.openList = s.openList[:last]
	for _, t := range s.active {
		if t.lanesOn[m] > 0 {
			t.openN--
		}
	}
}

// control is the concurrency controller: one step per model per tick.
//
// A raise needs the limit to be binding: with the slots the model has free
// now (limit − running, where running already excludes the jobs that finished
// since the last tick), admission would start every slot and still leave jobs
// of the model waiting, with containers left over. If the model's waiting jobs
// fit in its free slots, or the container pool cannot even fill the free slots
// of every model, a higher limit would start nothing more this tick: raising
// then only winds the limit up, to be paid for later in a flood of starts.
func (s *Scheduler) control(now time.Time, state State, containers int) {
	fillable := 0
	for i := range s.limits {
		r := state.Running(ModelID(i))
		s.running[i] = r
		fillable += min(s.waitM[i], max(s.limits[i]-r, 0))
	}
	spare := containers > fillable
	for i := range s.limits {
		m := ModelID(i)
		depth, asOf := state.GatewayDepth(m)
		if asOf.IsZero() || now.Sub(asOf) > s.cfg.StaleAfter {
			s.action[i] = ActionStale
			continue
		}
		d := float64(depth)
		if s.smoothing > 0 {
			switch {
			case !s.haveEWMA[i]:
				s.haveEWMA[i] = true
				s.lastAsOf[i] = asOf
			case asOf.After(s.lastAsOf[i]):
				d = s.smoothing*d + (1-s.smoothing)*s.depth[i]
				s.lastAsOf[i] = asOf
			default: // the same reading again: do not count it twice
				d = s.depth[i]
			}
		}
		s.depth[i] = d
		l := s.limits[i]
		switch {
		case d < s.target[i]:
			if spare && s.waitM[i] > max(l-s.running[i], 0) {
				s.limits[i] = s.raise(l, s.maxL[i])
				s.action[i] = ActionRaise
			} else {
				s.action[i] = ActionNotBinding
			}
		case d > s.target[i]+s.tolerance && l < s.running[i]:
			s.action[i] = ActionBelowRunning
		case d > s.target[i]+s.tolerance:
			s.limits[i] = s.lower(l, s.minL[i])
			s.action[i] = ActionLower
		default:
			s.action[i] = ActionHold
		}
	}
}

func (s *Scheduler) raise(l, hi int) int {
	n := l + s.cfg.Step
	if s.mult {
		n = max(int(math.Round(float64(l)*s.cfg.Factor)), l+1)
	}
	return min(n, hi)
}

func (s *Scheduler) lower(l, lo int) int {
	n := l - s.cfg.Step
	if s.mult {
		n = min(int(math.Round(float64(l)/s.cfg.Factor)), l-1)
	}
	return max(n, lo)
}

// pickTier chooses the tier of the next start by smooth weighted round robin
// over the tiers that can use a slot now: the i-th such tier by priority has
// weight share·(1-share)^i, the last one (1-share)^i. Each tier's credit
// carries across ticks, so shares hold even with one slot per tick.
func (s *Scheduler) pickTier() *tierNode {
	elig := s.eligBuf[:0]
	for _, t := range s.active {
		if t.openN > 0 {
			elig = append(elig, t)
		}
	}
	s.eligBuf = elig
	switch len(elig) {
	case 0:
		return nil
	case 1:
		return elig[0] // credit += 1, then -= 1
	}
	var best *tierNode
	last := len(elig) - 1
	for i, t := range elig {
		w := s.rest[i]
		if i < last {
			w *= s.share
		}
		t.credit += w
		if best == nil || t.credit > best.credit {
			best = t
		}
	}
	best.credit--
	for _, t := range elig {
		// Credits stay within (-1, 1) while the set of tiers is steady; the
		// clamp only bounds what a changing set can leave behind.
		t.credit = min(max(t.credit, -2), 2)
	}
	return best
}

// pickProject is the project whose turn it is in the tier: the first, from
// the cursor on round the ring, with a job on an open model. The tier must
// have one. It costs one bitset search per open model.
func (s *Scheduler) pickProject(t *tierNode) *projNode {
	c, n := t.cursor, len(t.ring)
	if c >= n {
		c = 0
	}
	best, bestDist := -1, n+1
	for _, m := range s.openList {
		if t.lanesOn[m] == 0 {
			continue
		}
		b := &t.byModel[m]
		i, d := b.next(c), 0
		if i >= 0 {
			d = i - c
		} else {
			i = b.next(0)
			d = i + n - c
		}
		if d < bestDist {
			best, bestDist = i, d
			if d == 0 {
				break
			}
		}
	}
	if best < 0 {
		panic("scheduler: tier has no project with an open model")
	}
	return t.ring[best]
}

// oldestOpen is the oldest job of the project on an open model.
func (s *Scheduler) oldestOpen(p *projNode) int32 {
	best := int32(-1)
	for _, l := range p.lanes {
		if !s.isOpen[l.model] {
			continue
		}
		if ri := l.h[0]; best < 0 || s.older(ri, best) {
			best = ri
		}
	}
	if best < 0 {
		panic("scheduler: project has no job on an open model")
	}
	return best
}

func (s *Scheduler) older(a, b int32) bool {
	ra, rb := &s.recs[a], &s.recs[b]
	if ra.sec != rb.sec {
		return ra.sec < rb.sec
	}
	if ra.nsec != rb.nsec {
		return ra.nsec < rb.nsec
	}
	return ra.id < rb.id
}

// bitset is a set of small integers with a summary word per 64 words, so
// that finding the next member skips 4,096 absent ones at a time.
type bitset struct {
	words   []uint64
	summary []uint64 // bit w set ⇔ words[w] != 0
}

func (b *bitset) set(i int) {
	w := i >> 6
	for w >= len(b.words) {
		b.words = append(b.words, 0)
	}
	for w>>6 >= len(b.summary) {
		b.summary = append(b.summary, 0)
	}
	b.words[w] |= 1 << (uint(i) & 63)
	b.summary[w>>6] |= 1 << (uint(w) & 63)
}

func (b *bitset) clear(i int) {
	w := i >> 6
	b.words[w] &^= 1 << (uint(i) & 63)
	if b.words[w] == 0 {
		b.summary[w>>6] &^= 1 << (uint(w) & 63)
	}
}

// next is the first member >= from, or -1.
func (b *bitset) next(from int) int {
	w := from >> 6
	if w >= len(b.words) {
		return -1
	}
	if word := b.words[w] &^ (1<<(uint(from)&63) - 1); word != 0 {
		return w<<6 + bits.TrailingZeros64(word)
	}
	w++
	for sw := w >> 6; sw < len(b.summary); sw++ {
		sum := b.summary[sw]
		if sw == w>>6 {
			sum &^= 1<<(uint(w)&63) - 1
		}
		if sum != 0 {
			wi := sw<<6 + bits.TrailingZeros64(sum)
			return wi<<6 + bits.TrailingZeros64(b.words[wi])
		}
	}
	return -1
}

// link files a job record under its tier, project and model.
func (s *Scheduler) link(ri int32) {
	r := &s.recs[ri]
	t := s.tiers[r.tier]
	if t == nil {
		t = &tierNode{tier: r.tier, byModel: make([]bitset, len(s.limits)), lanesOn: make([]int32, len(s.limits))}
		s.tiers[r.tier] = t
	}
	if t.waiting == 0 {
		s.activate(t)
	}
	key := projKey{tier: r.tier, account: r.account, project: r.project}
	p := s.projects[key]
	if p == nil {
		p = s.newProj(t, key)
		s.projects[key] = p
	}
	var l *lane
	for _, x := range p.lanes {
		if x.model == r.model {
			l = x
			break
		}
	}
	if l == nil {
		l = s.newLane(p, r.model)
	}
	r.lane = l
	s.heapPush(l, ri)
	t.waiting++
	p.waiting++
	s.waitM[r.model]++
	s.waiting++
}

// unlink removes a job record from the index, dropping any lane, project or
// tier it leaves empty.
func (s *Scheduler) unlink(ri int32) {
	r := &s.recs[ri]
	l := r.lane
	p := l.proj
	t := p.tier
	s.heapRemove(l, int(r.hpos))
	t.waiting--
	p.waiting--
	s.waitM[r.model]--
	s.waiting--
	if len(l.h) == 0 {
		s.dropLane(l)
	}
	if p.waiting == 0 {
		s.dropProj(p)
	}
	if t.waiting == 0 {
		s.deactivate(t)
	}
}

func (s *Scheduler) activate(t *tierNode) {
	i := len(s.active)
	s.active = append(s.active, t)
	for ; i > 0 && s.active[i-1].tier > t.tier; i-- {
		s.active[i] = s.active[i-1]
	}
	s.active[i] = t
	if cap(s.eligBuf) < len(s.active) { // so pickTier never allocates
		s.eligBuf = make([]*tierNode, 0, cap(s.active))
	}
}

func (s *Scheduler) deactivate(t *tierNode) {
	t.credit = 0 // like a DRR deficit, credit does not outlive a backlog
	for i, x := range s.active {
		if x == t {
			s.active = append(s.active[:i], s.active[i+1:]...)
			return
		}
	}
}

func (s *Scheduler) newProj(t *tierNode, key projKey) *projNode {
	p := s.projPool
	if p != nil {
		s.projPool, p.next = p.next, nil
	} else {
		p = &projNode{}
	}
	p.key, p.tier, p.waiting = key, t, 0
	if n := len(t.freeSlot); n > 0 {
		p.slot = t.freeSlot[n-1]
		t.freeSlot = t.freeSlot[:n-1]
		t.ring[p.slot] = p
	} else {
		p.slot = len(t.ring)
		t.ring = append(t.ring, p)
		if cap(t.freeSlot) < len(t.ring) { // so dropProj never allocates
			t.freeSlot = append(make([]int, 0, cap(t.ring)), t.freeSlot...)
		}
	}
	return p
}

func (s *Scheduler) dropProj(p *projNode) {
	t := p.tier
	delete(s.projects, p.key)
	t.ring[p.slot] = nil
	t.freeSlot = append(t.freeSlot, p.slot)
	p.tier, p.key = nil, projKey{}
	p.next, s.projPool = s.projPool, p
}

func (s *Scheduler) newLane(p *projNode, m ModelID) *lane {
	l := s.lanePool
	if l != nil {
		s.lanePool, l.next = l.next, nil
	} else {
		l = &lane{}
	}
	if l.h == nil {
		l.h = make([]int32, 0, laneMinCap)
	}
	l.proj, l.model = p, m
	l.ppos = int32(len(p.lanes))
	p.lanes = append(p.lanes, l)
	t := p.tier
	t.byModel[m].set(p.slot)
	t.lanesOn[m]++
	if t.lanesOn[m] == 1 && s.isOpen[m] {
		t.openN++
	}
	return l
}

func (s *Scheduler) dropLane(l *lane) {
	p, m := l.proj, l.model
	t := p.tier
	t.byModel[m].clear(p.slot)
	t.lanesOn[m]--
	if t.lanesOn[m] == 0 && s.isOpen[m] {
		t.openN--
	}
	last := p.lanes[len(p.lanes)-1]
	p.lanes[l.ppos] = last
	last.ppos = l.ppos
	p.lanes[len(p.lanes)-1] = nil
	p.lanes = p.lanes[:len(p.lanes)-1]
	l.proj = nil
	if cap(l.h) > laneMaxKeep {
		l.h = nil // do not hold a drained 50,000-job heap in the pool
	}
	l.next, s.lanePool = s.lanePool, l
}

// A lane's heap starts with room for laneMinCap jobs, and keeps up to
// laneMaxKeep of room in the pool.
const (
	laneMinCap  = 8
	laneMaxKeep = 4096
)

// Heap of a lane: oldest job at h[0].

func (s *Scheduler) heapPush(l *lane, ri int32) {
	l.h = append(l.h, ri)
	s.recs[ri].hpos = int32(len(l.h) - 1)
	s.heapUp(l, len(l.h)-1)
}

func (s *Scheduler) heapRemove(l *lane, i int) {
	n := len(l.h) - 1
	if i != n {
		l.h[i] = l.h[n]
		s.recs[l.h[i]].hpos = int32(i)
	}
	l.h = l.h[:n]
	if i < n {
		if !s.heapDown(l, i) {
			s.heapUp(l, i)
		}
	}
}

func (s *Scheduler) heapUp(l *lane, i int) {
	h := l.h
	for i > 0 {
		parent := (i - 1) / 2
		if !s.older(h[i], h[parent]) {
			break
		}
		h[i], h[parent] = h[parent], h[i]
		s.recs[h[i]].hpos = int32(i)
		s.recs[h[parent]].hpos = int32(parent)
		i = parent
	}
}

func (s *Scheduler) heapDown(l *lane, i0 int) bool {
	h := l.h
	n := len(h)
	i := i0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && s.older(h[r], h[c]) {
			c = r
		}
		if !s.older(h[c], h[i]) {
			break
		}
		h[i], h[c] = h[c], h[i]
		s.recs[h[i]].hpos = int32(i)
		s.recs[h[c]].hpos = int32(c)
		i = c
	}
	return i > i0
}
