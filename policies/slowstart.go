package policies

import "math"

// Constants of ControllerSlowStart (see the package documentation).
const (
	slowMaxLookback = 16   // the longest dead time, in ticks (the history ring)
	slowGain        = 0.05 // jobs moved per call of depth error per tick
)

// slowState is what ControllerSlowStart remembers per model.
type slowState struct {
	hist  tickRing // the limit in force at each of the last ticks
	empty int      // ticks in a row with an empty queue
}

// slowStartStep is an integral controller on the depth error that probes
// while the queue is empty and backs off when a probe overshoots.
//
// With calls queued, l ← l + g·(T − d) (g = slowGain jobs per call; zero
// error inside the tolerance band). An empty queue says only that the
// limit is short by an unknown amount, so the raise doubles every dead time
// the queue stays empty — g·T·2^(k/θ) after k empty ticks (at least one
// job), θ the dead time in ticks — but never grows the limit faster than
// ×factor per dead time, so the jobs started while the depth cannot yet show
// them are at most one step's worth. When a probe of at least a dead time
// ends with the depth over T + τ, that reading is news about the limit in
// force a dead time ago, not about today's: the limit backs off to that
// one. The jobs started since drain as they finish (no eviction), and the
// limit does not move meanwhile (the wind-down guard).
func (c *controller) slowStartStep(ls *limitState, in *signals) (float64, int) {
	r := &ls.rival
	s := &r.ss
	l := float64(ls.limit)
	back := c.slowBackoff(s, ls.limit)
	t, d := ls.target, in.depth
	if d < 1 {
		s.empty++
		if !in.binding {
			// apply drops a raise's target when the limit is not binding
			// (wind-up), so the probe, an Exp2 for every idle model at
			// every tick, is not worked out
			return r.fl, 1
		}
		u := slowGain * t * math.Exp2(float64(s.empty)/float64(c.lookback))
		return r.fl + min(max(u, 1), c.slowProbe(l)-l), 1
	}
	probed := s.empty >= c.lookback
	s.empty = 0
	if probed && d > t+c.tolerance && float64(back) < l {
		return float64(back), -1
	}
	e := t - d
	if d > t && d <= t+c.tolerance {
		e = 0
	}
	most := (c.factor - 1) * l
	u := min(max(slowGain*e, -most), most)
	return r.fl + u, sign(u)
}

// slowIdle is slowStartStep followed by apply for a model whose queue is
// empty (depth below one) and whose limit is not binding: apply drops the
// raise (wind-up), so only the history, the empty run, the action and the
// real-valued limit move.
func (c *controller) slowIdle(ls *limitState) {
	s := &ls.rival.ss
	s.hist.record(ls.limit)
	s.empty++
	ls.action, ls.rival.fl = ActionNotBinding, float64(ls.limit)
}

// slowProbe is the fastest probe: ×factor per dead time, in equal steps
// each tick (c.probe = factor^(1/θ)), at least one job.
func (c *controller) slowProbe(l float64) float64 {
	return growAtMost(l, c.probe)
}

// growAtMost is l grown by a factor per, at least one job.
func growAtMost(l, per float64) float64 {
	return max(l*per, l+1)
}

// slowBackoff records the limit in force this tick and returns the one in
// force c.lookback ticks ago (the oldest recorded while fewer).
func (c *controller) slowBackoff(s *slowState, limit int) int {
	s.hist.record(limit)
	return s.hist.ago(c.lookback)
}

// slowLookback is the dead time in whole ticks, at least one.
func slowLookback(cfg SchedulerConfig) int {
	if cfg.Tick <= 0 {
		return 1
	}
	return min(max(1, int(math.Round(float64(cfg.DeadTime)/float64(cfg.Tick)))), slowMaxLookback-1)
}
