package policies

import "math"

// Constants of ControllerDamped (see the package documentation).
const (
	dampAlpha = 0.3 // weight of the newest reading in its own average
	dampLo    = 0.5 // raise below T − dampLo·T
	dampHi    = 1.0 // lower above T + τ + dampHi·T
	dampWait  = 1   // ticks held after every move
	dampRun   = 3   // moves one way before the step doubles again
)

// dampedStep is a search on a smoothed depth s (its own average, weight
// dampAlpha): it raises only when both s and the newest reading d are below
// T − dampLo·T, lowers only when both are above T + τ + dampHi·T, holds
// dampWait ticks after every move, and holds while a lowered limit is still
// below the running count (the cut has not bitten yet). The step is g·l (at
// least one job), g starting at factor − 1, halved after a reversal and
// doubled (up to factor − 1) after dampRun moves one way.
func (c *controller) dampedStep(ls *limitState, in *signals) (float64, int) {
	r := &ls.rival
	l := float64(ls.limit)
	if !r.haveE {
		r.ewma, r.haveE = in.depth, true
	} else {
		r.ewma += dampAlpha * (in.depth - r.ewma)
	}
	if r.wait > 0 {
		r.wait--
		return l, 0
	}
	if r.lastDir < 0 && in.running > ls.limit {
		return l, 0
	}
	t, hiS, loS := ls.target, max(r.ewma, in.depth), min(r.ewma, in.depth)
	dir := 0
	switch {
	case hiS < t-dampLo*t:
		dir = 1
	case loS > t+c.tolerance+dampHi*t:
		dir = -1
	default:
		return l, 0
	}
	if r.gain == 0 {
		r.gain = c.factor - 1
	}
	switch {
	case r.lastDir != 0 && int(r.lastDir) != dir:
		r.gain /= 2
		r.run = 0
	case int(r.lastDir) == dir && r.run+1 >= dampRun:
		r.gain = min(r.gain*2, c.factor-1)
		r.run = 0
	}
	step := max(1, math.Round(l*r.gain))
	return l + float64(dir)*step, dir
}

// dampedMoved records a move of dir and starts the wait.
func dampedMoved(r *rivalState, dir int) {
	if int(r.lastDir) == dir {
		r.run++
	} else {
		r.run = 1
	}
	r.lastDir = int8(dir)
	r.wait = dampWait
}
