package policies

import (
	"time"
)

// ModelID indexes the model catalogue a policy was built with. The caller
// (the simulator, or a real service) owns the catalogue; IDs are dense, 0..n-1.
type ModelID int32

// JobID identifies a job for the lifetime of the caller. IDs are never reused
// while the job is waiting or running.
type JobID int64

// Tier is a priority tier: 0 means "not set here, inherit from the level above";
// 1 is the highest priority, larger numbers are lower priorities.
type Tier int8

// DefaultTier is the tier of a job none of whose levels sets one.
const DefaultTier Tier = 3

// Job is what a policy sees of a waiting job.
type Job struct {
	ID      JobID
	Account string
	Project string
	Batch   string
	// Tiers set on the account, project and batch; 0 = inherit.
	AccountTier, ProjectTier, BatchTier Tier
	Model                               ModelID
	Arrival                             time.Time
}

// EffectiveTier resolves the tier by inheritance account → project →
// batch as the source describes it ("priority passes from an account to
// its projects and batches", so pinning an account raises everything under
// it): a level's priority is passed down, and a level below may raise it
// but never lower it, so the job takes the highest priority (the smallest
// tier) any of its levels sets; with none set, DefaultTier.
func (j *Job) EffectiveTier() Tier {
	return effectiveTier([3]Tier{j.AccountTier, j.ProjectTier, j.BatchTier})
}

// effectiveTier is Job.EffectiveTier of the account, project and batch
// tiers.
func effectiveTier(levels [3]Tier) Tier {
	t := Tier(0)
	for _, x := range levels {
		if x > 0 && (t == 0 || x < t) {
			t = x
		}
	}
	if t == 0 {
		return DefaultTier
	}
	return t
}

// State is the read-only view of the world a policy decides on. A real service
// implements it from its own bookkeeping and its gateway's metrics.
type State interface {
	// Running is the number of started, unfinished jobs on a model (holding a
	// container, including those whose container is still starting).
	Running(m ModelID) int
	// GatewayDepth is the number of calls for the model waiting in the gateway
	// queue, as last reported, and the time that reading was taken. A metrics
	// pipeline can make the reading stale: asOf may lie before now.
	GatewayDepth(m ModelID) (depth int, asOf time.Time)
	// FreeContainers is the number of containers that can be allocated now.
	FreeContainers() int
}

// DepthTargets is an optional capability of a policy that steers each
// model's gateway queue towards a target depth: the targets, one per model
// of its catalogue, in order. A wrapper (Guard) offers it exactly when the
// policy it wraps does.
type DepthTargets interface {
	TargetDepths() []float64
}

// Fallible is an optional capability of a policy that can fail for reasons
// outside its own logic (one that runs in another process): Err is the
// error that stopped it, nil while it works. A caller checks it after every
// Decide and stops on it; a failed policy starts nothing. A wrapper (Guard)
// offers it exactly when the policy it wraps does.
type Fallible interface {
	Err() error
}

// TimeFree is an optional capability of a policy that reads no instant it
// is given (the now of Enqueue, Decide and Finished, a Job's Arrival): a
// caller whose TimeFree is true may pass the zero time instead of building
// one.
type TimeFree interface {
	TimeFree() bool
}

// InflightLimits is an optional capability of a State: each model's
// in-flight limit at the gateway now (its connection pool), which an
// adaptive limit moves. Reading it changes nothing.
type InflightLimits interface {
	InflightLimit(m ModelID) int
}

// Trigger says when a policy wants Decide to be called.
type Trigger struct {
	// Tick, if positive, asks for a call every Tick, starting at time zero.
	Tick time.Duration
	// OnEvent asks for a call after every arrival and every finish.
	OnEvent bool
}

// Plan is the decision a policy returns. The caller owns it and resets it
// between calls, so a policy appends without allocating in steady state.
type Plan struct {
	// Start lists waiting jobs to start now, in the order to start them.
	Start []JobID
	// Limits, if the policy keeps per-model running-job limits, holds the
	// current limit of every model (len = number of models); nil otherwise.
	// It may be the policy's own slice, which the caller reads without
	// copying until the next Decide: the policy changes its contents only
	// inside Decide (not in Enqueue or Finished), and the caller never
	// writes them.
	Limits []int
}

// Reset empties the plan for reuse.
func (p *Plan) Reset() {
	p.Start = p.Start[:0]
}

// Policy decides which waiting jobs start. The caller tells it about every job
// that starts waiting (Enqueue) and every started job that finishes (Finished);
// the policy owns the waiting queue and, on Decide, returns which jobs to start.
// A job returned in Plan.Start is started by the caller and leaves the queue.
//
// Implementations take time as an argument and keep no goroutines, so the
// simulator can drive them on a virtual clock and a service on a real one.
type Policy interface {
	Name() string
	Trigger() Trigger
	Enqueue(now time.Time, job Job)
	Finished(now time.Time, id JobID, model ModelID)
	Decide(now time.Time, state State, plan *Plan)
	// Waiting is the number of jobs queued in the policy.
	Waiting() int
}

// Quota dimensions of a QuotaReading.
const (
	DimRPM = iota
	DimTPM
	DimRPD
	DimTPD
	NumDims
)

// QuotaReading is what a gateway knows of one model's provider quotas.
type QuotaReading struct {
	// Tries and Rejected count the model's tries (evaluation and
	// production) offered since the previous Decide, and those refused by
	// a quota (429, from the provider or the gateway's virtual key).
	Tries, Rejected int
	// Use is, per dimension, the evaluation calls' quota window (all its
	// traffic) as a share of its limit; 0 where no quota is set.
	Use [NumDims]float64
	// ProductionUse is, per dimension, production's own share of its
	// organisation's window on the model.
	ProductionUse [NumDims]float64
	// ModelUse is, per dimension, the model's own evaluation calls' share
	// of the Use window: what a raise of the model's limit would add to.
	ModelUse [NumDims]float64
	// BelowShare: the model holds less than its share of the running jobs
	// of the models with tries on its organisation (their mean), as in
	// QuotaState.Rejections.
	BelowShare bool
	// AsOf is when the reading was taken.
	AsOf time.Time
}

// RejectRate is Rejected ÷ Tries (0 with no tries).
func (q QuotaReading) RejectRate() float64 {
	if q.Tries == 0 {
		return 0
	}
	return float64(q.Rejected) / float64(q.Tries)
}

// QuotaState is a State that also reports quota signals. It is optional: a
// policy type-asserts it and goes without when the caller does not offer it,
// so every State implementation stays valid.
type QuotaState interface {
	State
	// Quota is the model's full quota reading.
	Quota(m ModelID) QuotaReading
	// Rejections is the model's 429s since the previous Decide that it
	// answers for, cheap enough for every model at every tick: 0 exactly
	// when QuotaReading.Rejected is 0; at most 1 while the model holds
	// less than its share of a quota it shares with other models (their
	// mean running jobs), QuotaReading.Rejected otherwise.
	Rejections(m ModelID) int
}
