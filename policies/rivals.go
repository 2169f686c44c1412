package policies

import (
	"math"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/evalsched/lab/internal/yamltree"
)

// ControllerKind names the rule that moves a model's running-job limit. The
// maths and failure modes of each are in the package documentation.
type ControllerKind string

const (
	// ControllerStep is the reference: one step up below target, one step
	// down above target plus tolerance (StepMode, Step, Factor).
	ControllerStep ControllerKind = "step"
	// ControllerSearch is the step controller with a hysteresis band and a
	// step that halves after every reversal: a search that converges.
	ControllerSearch ControllerKind = "search"
	// ControllerAIMD raises by Step below target and multiplies by 0.8 above.
	ControllerAIMD ControllerKind = "aimd"
	// ControllerPI is a proportional-integral controller on the depth error.
	ControllerPI ControllerKind = "pi"
	// ControllerGradient follows Netflix concurrency-limits' Gradient2 on the
	// calls' latency (gateway wait and service).
	ControllerGradient ControllerKind = "gradient"
	// ControllerInspect is inspect_ai's adaptive connection control: double
	// until the first 429, then +5% per clean tick, ×0.8 per 429 episode.
	ControllerInspect ControllerKind = "inspect"
	// ControllerBands is a per-band AIMD gate in the manner of llm-d-async:
	// the depth's band (open, hold, busy, saturated) picks the move.
	ControllerBands ControllerKind = "bands"
	// ControllerDamped is a search on a smoothed depth with a wide hold band,
	// a wait after every move and a freeze while a lowered limit has not bitten.
	ControllerDamped ControllerKind = "damped"
	// ControllerSlowStart (the default) is an integral step on the depth
	// error that probes while the queue is empty (at most ×factor per dead
	// time) and, when a probe overshoots, backs off to the limit in force a
	// dead time earlier.
	ControllerSlowStart ControllerKind = "slowstart"
)

// Controllers lists every controller kind, the reference first.
var Controllers = []ControllerKind{ControllerStep, ControllerSearch, ControllerAIMD, ControllerPI,
	ControllerGradient, ControllerInspect, ControllerBands, ControllerDamped, ControllerSlowStart}

func (k ControllerKind) String() string { return string(k) }

// UnmarshalYAML refuses a controller name not in Controllers where it is
// read, listing the names.
func (k *ControllerKind) UnmarshalYAML(n *yaml.Node) (err error) {
	*k, err = yamltree.EnumOf(n, Controllers)
	return err
}

// Constants of the rival controllers (see the package documentation).
const (
	aimdDecrease     = 0.8  // ControllerAIMD and ControllerInspect: × on congestion
	inspectIncrease  = 0.05 // ControllerInspect: + share per clean tick
	inspectDebounce  = 3    // ControllerInspect: ticks in which further 429s are one episode
	searchRunDoubles = 3    // ControllerSearch: moves one way before the step doubles again
	piKp, piKi       = 0.05, 0.02
	piMaxMove        = 0.25 // ControllerPI: largest move per tick, as a share of the limit
	gradLongTicks    = 60   // ControllerGradient: the long latency average, in readings
	gradTolerance    = 1.5  // rttTolerance of Gradient2
	gradSmoothing    = 0.2  // smoothing of Gradient2
	gradQueue        = 4    // queueSize of Gradient2 (at least √limit here)
	bandsDecrease    = 0.75 // ControllerBands: × in the saturated band
)

// rivalState is what the rival controllers remember per model.
type rivalState struct {
	ss       slowState // ControllerSlowStart: first, what an idle model's tick touches
	fl       float64   // the limit as a real: PI and gradient move it by fractions
	lastDir  int8      // direction of the last move: +1, -1, 0 none yet
	run      int       // moves in a row in lastDir
	gain     float64   // ControllerSearch: the current step as a share of the limit
	ePrev    float64   // ControllerPI: the last error
	longLat  float64   // ControllerGradient: long average of the latency
	slow     bool      // ControllerInspect: still doubling (no 429 yet)
	debounce time.Time
	ewma     float64 // ControllerDamped: its own smoothed depth
	haveE    bool
	wait     int // ControllerDamped: ticks left to hold after a move
}

// propose is the limit a rival controller wants, as a real, and the
// direction of the move (+1 raise, -1 lower, 0 hold).
func (c *controller) propose(ls *limitState, in *signals) (float64, int) {
	r := &ls.rival
	l := float64(ls.limit)
	t, d := ls.target, in.depth
	switch c.kind {
	case ControllerSearch:
		if r.gain == 0 {
			r.gain = c.factor - 1
		}
		return c.searchStep(ls, d)
	case ControllerAIMD:
		switch {
		case d < t:
			return l + float64(c.step), 1
		case d > t+c.tolerance:
			return l * aimdDecrease, -1
		}
	case ControllerPI:
		return c.piStep(ls, d)
	case ControllerGradient:
		return c.gradientStep(ls, in)
	case ControllerInspect:
		return c.inspectStep(ls, in)
	case ControllerDamped:
		return c.dampedStep(ls, in)
	case ControllerSlowStart:
		return c.slowStartStep(ls, in)
	case ControllerBands:
		switch {
		case d <= t/2:
			return l + max(float64(c.step), inspectIncrease*l), 1
		case d <= t+c.tolerance:
		case d <= 2*t+c.tolerance:
			return l - 1, -1
		default:
			return l * bandsDecrease, -1
		}
	}
	return l, 0
}

// searchStep: raise below target − h, lower above target + tolerance + h,
// by gain × limit (at least one job); the gain halves after each reversal
// and doubles (up to factor − 1) after searchRunDoubles moves one way.
func (c *controller) searchStep(ls *limitState, d float64) (float64, int) {
	r := &ls.rival
	dir := 0
	switch {
	case d < ls.target-c.hyst:
		dir = 1
	case d > ls.target+c.tolerance+c.hyst:
		dir = -1
	default:
		return float64(ls.limit), 0
	}
	gain := r.gain
	switch {
	case r.lastDir != 0 && int(r.lastDir) != dir:
		gain = max(gain/2, 1.0/1024)
	case int(r.lastDir) == dir && r.run+1 >= searchRunDoubles:
		gain = min(gain*2, c.factor-1)
	}
	step := max(1, math.Round(float64(ls.limit)*gain))
	return float64(ls.limit) + float64(dir)*step, dir
}

// piStep: e = (T − d)/(T + d), in (−1, 1]; the limit moves by
// l × (Kp·(e − e_prev) + Ki·e), at most piMaxMove of itself.
func (c *controller) piStep(ls *limitState, d float64) (float64, int) {
	r := &ls.rival
	e := (ls.target - d) / (ls.target + d)
	if d > ls.target && d <= ls.target+c.tolerance {
		e = 0
	}
	u := piKp*(e-r.ePrev) + piKi*e
	r.ePrev = e
	u = min(max(u, -piMaxMove), piMaxMove)
	return r.fl * (1 + u), sign(u)
}

// gradientStep is Gradient2 per latency reading: the long average decays
// when it is over twice the newest reading; gradient = clamp(tol × long /
// short, 0.5, 1); new = l × gradient + queue; l ← (1−s)·l + s·new.
func (c *controller) gradientStep(ls *limitState, in *signals) (float64, int) {
	r := &ls.rival
	if !in.latFresh {
		return float64(ls.limit), 0
	}
	short := in.latency
	if r.longLat == 0 {
		r.longLat = short
	}
	g := min(max(gradTolerance*r.longLat/short, 0.5), 1)
	if short <= 1.1*r.longLat { // the baseline learns only from uncongested readings
		r.longLat += (short - r.longLat) * 2 / (gradLongTicks + 1)
	}
	if r.longLat/short > 2 {
		r.longLat *= 0.95
	}
	q := max(gradQueue, math.Sqrt(r.fl))
	want := (1-gradSmoothing)*r.fl + gradSmoothing*(r.fl*g+q)
	return want, sign(want - r.fl)
}

// inspectStep: ×0.8 on the first 429 of an episode (429s within the
// debounce after a decrease are the same episode), doubling before the first
// 429, +5% (at least one) per clean tick after it.
func (c *controller) inspectStep(ls *limitState, in *signals) (float64, int) {
	r := &ls.rival
	l := float64(ls.limit)
	if in.new429 > 0 {
		r.slow = false
		if in.now.Before(r.debounce) {
			return l, 0
		}
		r.debounce = in.now.Add(inspectDebounce * c.staleAfter / defaultStaleAfterTick)
		return l * aimdDecrease, -1
	}
	if r.slow {
		return 2 * l, 1
	}
	return l + max(1, inspectIncrease*l), 1
}

// apply moves the limit to want (rounded, clamped), under the guards every
// controller shares: no raise unless the limit is binding (wind-up), no
// lowering of a limit already below the running count (wind-down).
func (c *controller) apply(ls *limitState, want float64, dir int, in *signals) {
	r := &ls.rival
	l := ls.limit
	switch {
	case dir > 0 && !in.binding:
		ls.action, r.fl = ActionNotBinding, float64(l)
		return
	case dir < 0 && l < in.running:
		ls.action, r.fl = ActionBelowRunning, float64(l)
		return
	case dir == 0:
		ls.action = ActionHold
		return
	}
	r.fl = min(max(want, float64(ls.minL)), float64(ls.maxL))
	n := l
	if math.Abs(r.fl-float64(l)) >= 1 || r.fl == float64(ls.minL) || r.fl == float64(ls.maxL) {
		n = int(math.Round(r.fl))
	}
	if n > l {
		capped, room := in.roomToRaise(l, n)
		if !room {
			ls.action, r.fl = ActionNoHeadroom, float64(l)
			return
		}
		if capped < n {
			n, r.fl = capped, float64(capped)
		}
	}
	if c.kind == ControllerSearch {
		c.searchMoved(r, float64(ls.limit), want, dir)
	}
	if c.kind == ControllerDamped && n != l {
		dampedMoved(r, dir)
	}
	ls.limit = n
	switch {
	case n > l:
		ls.action = ActionRaise
	case n < l:
		ls.action = ActionLower
	default:
		ls.action = ActionHold
	}
}

// searchMoved updates the search's gain and run after a move of dir from l
// to want: the gain is the share of the limit the move took.
func (c *controller) searchMoved(r *rivalState, l, want float64, dir int) {
	if int(r.lastDir) == dir {
		r.run++
	} else {
		r.run = 1
	}
	if l > 0 {
		r.gain = max(math.Abs(want-l)/l, 1.0/1024)
	}
	r.lastDir = int8(dir)
}

func sign(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}
