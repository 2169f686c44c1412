package policies

import (
	"fmt"
	"math"
	"time"
)

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
	// ActionRejected: the model's tries were refused by a quota (429) since
	// the last tick: no raise, whatever the depth.
	ActionRejected
	// ActionRejectedLower: rejections persisted for reject_lower_after
	// ticks in a row: lowered one step (unless already below running).
	ActionRejectedLower
	// ActionNoHeadroom: a raise was due, but the model's quota window has
	// no room for it (see signals.roomToRaise): held.
	ActionNoHeadroom
)

var actionNames = [...]string{"hold", "raise", "lower", "not-binding", "stale", "below-running", "rejected", "rejected-lower", "no-headroom"}

func (a Action) String() string {
	if int(a) < len(actionNames) && a >= 0 {
		return actionNames[a]
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// controller holds the settings of the limit controller, the same for every
// model; the per-model part is a limitState.
type controller struct {
	staleAfter time.Duration
	step       int
	factor     float64
	mult       bool
	tolerance  float64
	smoothing  float64 // 0 = off
	kind       ControllerKind
	hyst       float64 // ControllerSearch: the hysteresis around the hold band
	quota      bool    // read the 429 signal (QuotaState), unless ignore_quota
	lowerAfter int     // ticks of persistent rejections before lowering
	lookback   int     // ControllerSlowStart: the dead time, in ticks
	minute     int     // ticks in a minute (the per-minute quota windows), 1..16
	quotaProbe float64 // factor^(tick/quota_dead_time): the fastest growth per tick near a quota
	probe      float64 // ControllerSlowStart: factor^(1/lookback), its fastest growth per tick
	// idle: slowstart without smoothing, whose tick steps an idle model
	// (fresh reading, empty queue, limit not binding) by slowIdle alone
	idle bool
	// holds: job_rate_hold is on, so every model's rateHold has its
	// half-life (NewScheduler gives each the config's)
	holds bool

	fresh staleMemo // a cache of the step's last staleness answer, not a setting
}

// staleMemo is the last answer of stepRule's staleness test: whether a reading
// taken at asOf is fresh at now. The zero value is a true one: a reading at
// the zero time was never taken, so it is stale.
type staleMemo struct {
	now, asOf time.Time
	fresh     bool
}

// of reports whether the memo is the answer for (now, asOf).
func (f *staleMemo) of(now, asOf time.Time) bool { return now == f.now && asOf == f.asOf }

func newController(cfg SchedulerConfig) controller {
	c := controller{
		staleAfter: cfg.StaleAfter,
		step:       cfg.Step,
		factor:     cfg.Factor,
		mult:       cfg.StepMode == StepMultiplicative,
		tolerance:  float64(cfg.DepthTolerance),
		kind:       cfg.Controller,
		hyst:       max(1, float64(cfg.TargetDepth)/4),
		quota:      !cfg.IgnoreQuota,
		lowerAfter: cfg.RejectLowerAfter,
		lookback:   slowLookback(cfg),
		minute:     minuteTicks(cfg.Tick),
		quotaProbe: 1,
	}
	if cfg.QuotaDeadTime > 0 && cfg.Tick > 0 {
		c.quotaProbe = math.Pow(c.factor, float64(cfg.Tick)/float64(cfg.QuotaDeadTime))
	}
	c.probe = math.Pow(c.factor, 1/float64(c.lookback))
	if cfg.Smoothing > 0 && cfg.Smoothing < 1 {
		c.smoothing = cfg.Smoothing
	}
	c.idle = c.kind == ControllerSlowStart && c.smoothing == 0
	c.holds = cfg.JobRateHold > 0
	return c
}

// limitState is one model's running-job limit and what its controller
// remembers between ticks.
type limitState struct {
	limit    int
	depth    float64 // last reading used (smoothed if configured)
	rejTicks int     // consecutive ticks with 429s
	action   Action
	ran      tickRing   // running counts at the last ticks
	rival    rivalState // what the rival controllers remember (rivals.go)
	hold     rateHold   // the held per-job use of the per-minute quota windows
	target   float64
	minL     int
	maxL     int
	haveEWMA bool
	lastAsOf time.Time // time of the last reading fed into the average
	latAsOf  time.Time // time of the last latency reading taken in
	seen429  int64     // the 429 count as last read
}

func newLimitState(r ModelLimits) limitState {
	return limitState{limit: r.InitialLimit, target: float64(r.TargetDepth), minL: r.MinLimit, maxL: r.MaxLimit,
		rival: rivalState{fl: float64(r.InitialLimit), slow: true}}
}

// control runs the controller: one step per model per tick.
//
// A raise needs the limit to be binding: with the slots the model has free
// now (limit − running, where running already excludes the jobs that finished
// since the last tick), admission would start every slot and still leave jobs
// of the model waiting, with containers left over. If the model's waiting jobs
// fit in its free slots, or the container pool cannot even fill the free slots
// of every model, a higher limit would start nothing more this tick: raising
// then only winds the limit up, to be paid for later in a flood of starts.
func (s *Scheduler) control(now time.Time, state State, containers int) {
	models, limits := s.models, s.limits[:len(s.models)]
	c := &s.ctl
	fillable := 0
	for i := range models {
		m := &models[i]
		m.running = state.Running(ModelID(i))
		fillable += min(m.waiting, max(m.limit-m.running, 0))
	}
	spare := containers > fillable
	qs, quota := state.(QuotaState)
	// inspect's own rule is a 429 rule, read from LatencySignals: the quota
	// rule would take every tick with a 429 before inspect heard one, and
	// inspect would double on every clean tick for ever
	lat, hears429 := state.(LatencySignals)
	quota = quota && c.quota && !(c.kind == ControllerInspect && hears429)
	if !c.kind.readsLatencySignals() {
		lat = nil // what the others would read of it is never used
	}
	in := signals{now: now, quotaProbe: c.quotaProbe, minute: c.minute}
	if quota {
		in.quota = qs
	}
	// whether the staleness memo is of now: true once stepRule has run
	// this tick (it leaves the memo at now), so the models' idle tests
	// compare only their readings' times
	memoNow := c.fresh.now == now
	for i := range models {
		m := &models[i]
		depth, asOf := state.GatewayDepth(ModelID(i))
		m.ran.record(m.running)
		in.binding = spare && m.waiting > max(m.limit-m.running, 0)
		if lat != nil {
			in.latency, in.latFresh, in.new429 = 0, false, 0
			readSignals(lat, ModelID(i), &m.limitState, &in)
		}
		if quota {
			if n := qs.Rejections(ModelID(i)); n == 0 {
				m.rejTicks = 0 // rejected on a clean tick, without the call
			} else if c.rejected(&m.limitState, n, m.running) {
				limits[i] = m.limit
				continue
			}
		}
		// an idle model's step first: it costs no call, nor the rest of
		// the signals, which slowIdle does not read
		if c.idleFront(depth, asOf, in.binding, memoNow) {
			m.depth = float64(depth)
			c.slowIdle(&m.limitState)
			limits[i] = m.limit
			continue
		}
		in.running, in.model, in.ran, in.depth, in.hold = m.running, ModelID(i), &m.ran, 0, nil
		if c.holds {
			in.hold = &m.hold
		}
		c.stepRule(&m.limitState, depth, asOf, &in)
		memoNow = true
		limits[i] = m.limit
	}
}

// rejected applies the quota signal (QuotaState.Rejections: the 429s the
// model answers for): with any 429 since the last tick the limit is not
// raised; after lowerAfter such ticks in a row, it is lowered one step when
// the model answers for more than one 429 this tick (unless already below
// running, as for depth). A model below its share of a shared
// organisation's running jobs answers for at most one, so it is held, not
// lowered: the lanes above their share give way first, so that the lanes
// of one organisation do not take its quota from each other. It reports
// whether it decided the tick; without 429s the depth rule does.
func (c *controller) rejected(ls *limitState, rejected, running int) bool {
	if rejected == 0 {
		ls.rejTicks = 0
		return false
	}
	ls.rejTicks++
	ls.action = ActionRejected
	if ls.rejTicks >= c.lowerAfter && ls.limit >= running && rejected > 1 {
		ls.limit = c.lower(ls.limit, ls.minL)
		// the rivals that move a real-valued limit (slowstart, pi,
		// gradient) step from rival.fl: it must follow the cut, or the
		// next clean tick puts the limit back where it was before it
		ls.rival.fl = float64(ls.limit)
		ls.action = ActionRejectedLower
	}
	return true
}

// idleFront reports whether a model's step is slowIdle's alone: c.idle, an
// empty queue, a limit not binding, and a reading the staleness memo
// holds fresh (memoNow: the memo is of the step's now). Most models at most
// ticks take it, so control tests it before stepRule's call.
func (c *controller) idleFront(depth int, asOf time.Time, binding, memoNow bool) bool {
	return c.idle && depth < 1 && !binding && memoNow && asOf == c.fresh.asOf && c.fresh.fresh
}

// stepRule moves one model's limit at most one step, given its depth
// reading taken at asOf, its running count, and whether its limit is
// binding (see Scheduler.control): raise below target when binding, lower
// above target plus tolerance unless already below running, hold otherwise
// or when the reading is stale.
func (c *controller) stepRule(ls *limitState, depth int, asOf time.Time, in *signals) {
	// the models' readings of one tick mostly share one time, and
	// time.Time.Sub is dear for every model at every tick: the answer for
	// the last (now, asOf) is kept (== compares the representations, so a
	// hit is the same computation on the same values)
	if !c.fresh.of(in.now, asOf) {
		c.fresh = staleMemo{now: in.now, asOf: asOf, fresh: !asOf.IsZero() && in.now.Sub(asOf) <= c.staleAfter}
	}
	if !c.fresh.fresh {
		ls.action = ActionStale
		return
	}
	d := float64(depth)
	if c.smoothing > 0 {
		switch {
		case !ls.haveEWMA:
			ls.haveEWMA = true
			ls.lastAsOf = asOf
		case asOf.After(ls.lastAsOf):
			d = c.smoothing*d + (1-c.smoothing)*ls.depth
			ls.lastAsOf = asOf
		default: // the same reading again: do not count it twice
			d = ls.depth
		}
	}
	ls.depth = d
	if c.kind != ControllerStep {
		if d < 1 && !in.binding && c.kind == ControllerSlowStart {
			c.slowIdle(ls) // most models at most ticks
			return
		}
		in.depth = d
		want, dir := c.propose(ls, in)
		c.apply(ls, want, dir, in)
		return
	}
	l := ls.limit
	switch {
	case d < ls.target:
		if !in.binding {
			ls.action = ActionNotBinding
			break
		}
		n, room := in.roomToRaise(l, c.raise(l, ls.maxL))
		if !room {
			ls.action = ActionNoHeadroom
			break
		}
		ls.limit, ls.action = n, ActionRaise
	case d > ls.target+c.tolerance && l < in.running:
		ls.action = ActionBelowRunning
	case d > ls.target+c.tolerance:
		ls.limit = c.lower(l, ls.minL)
		ls.action = ActionLower
	default:
		ls.action = ActionHold
	}
}

func (c *controller) raise(l, hi int) int {
	n := l + c.step
	if c.mult {
		n = max(int(math.Round(float64(l)*c.factor)), l+1)
	}
	return min(n, hi)
}

func (c *controller) lower(l, lo int) int {
	n := l - c.step
	if c.mult {
		n = min(int(math.Round(float64(l)/c.factor)), l-1)
	}
	return max(n, lo)
}

// minuteTicks is how many ticks make up a minute, the length of the
// per-minute quota windows (at least one, at most the ring's length).
func minuteTicks(tick time.Duration) int {
	if tick <= 0 {
		return 1
	}
	return min(max(1, int((time.Minute+tick-1)/tick)), slowMaxLookback)
}
