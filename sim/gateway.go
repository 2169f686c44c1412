package sim

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/evalsched/lab/internal/cacheline"
	"github.com/evalsched/lab/internal/ring"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/workloads"
)

// Gateway is the LLM gateway in front of the providers: one FIFO queue of
// evaluation calls per model, each with a hand-set in-flight limit, the
// backoff of rejected tries, and the queue depth a policy reads, optionally
// served stale by a delayed metrics pipeline.
type Gateway struct {
	lanes     []gatewayLane
	decisions uint64 // the policy's decisions so far: the signal windows' clock
	retry     *scenario.RetryConfig
	rn        *rand.Rand // backoff jitter

	adapt  *scenario.AdaptiveLimitConfig   // nil: hand-set limits (gateway_adaptive.go)
	ia     *scenario.InspectAdaptiveConfig // nil: not inspect's controller (gateway_inspect.go)
	hold   bool                            // retry.hold_connection
	spells []scenario.StaleSpell

	queuedOnly  bool   // depth_signal: queued (the old signal, for negative controls)
	delay       Time   // depth_delay
	sampleTimes []Time // ring of delayed-depth sample times; nil: a policy reads the live depth
	head, count int

	// stamp is Epoch + stampAt, the wall time of the last live reading: a
	// decision reads every lane at one instant (stamped says it is set).
	stamp   time.Time
	stampAt Time
	stamped bool
}

// gatewayLane is one model's queue. What a decision reads of it (the
// queue's length, the calls in backoff, the signal window's clock and its
// rejections) fills the first cache line; the rest of what every call
// touches (the in-flight count and limit, the open window's other counts)
// the second. The record is padded to five lines and the lanes start on
// one (cacheline.Slice, TestGatewayLanesStartCacheLines).
type gatewayLane struct {
	queue    ring.Ring[int32]
	backoff  int        // calls waiting out a backoff before rejoining the queue
	sig      signalLane // the signals a policy reads (signals.go)
	inflight int        // sent and accepted by the provider, not yet answered
	limit    int

	paceArmed bool         // a pacing wake-up is scheduled
	throttled int64        // evaluation tries rejected with a 429
	prev      signalWindow // the signal window before sig's open one
	ad        adaptive     // the adaptive limit, if on
	ia        inspectAdaptive
	history   []int32 // delayed depth readings, indexed like Gateway.sampleTimes
	// frozenD and frozenAt are the reading a stale spell serves, taken as
	// the spell starts (staleStart).
	frozenD  int
	frozenAt time.Time
	_        [56]byte
}

func newGateway(cfg *scenario.GatewayConfig, models []scenario.ModelConfig, seed uint64) Gateway {
	g := Gateway{
		lanes:      cacheline.Slice[gatewayLane](len(models)),
		retry:      &cfg.Retry,
		rn:         rand.New(rand.NewPCG(workloads.Stream(seed, "gateway"), 2)),
		delay:      FromDuration(cfg.DepthDelay),
		spells:     cfg.Stale,
		queuedOnly: cfg.DepthSignal == scenario.DepthQueued,
	}
	if cfg.AdaptiveLimit.Enabled {
		g.adapt = &cfg.AdaptiveLimit
	}
	g.ia, g.hold = cfg.InspectAdaptive, cfg.Retry.HoldConnection
	n := 0
	if cfg.DepthDelay > 0 {
		n = int(cfg.DepthDelay/cfg.DepthSample) + 2
		g.sampleTimes = make([]Time, n)
	}
	for i := range models {
		g.lanes[i].limit = models[i].InflightLimit
		if g.adapt != nil {
			g.lanes[i].ad.hi = max(1, int(float64(models[i].InflightLimit)*g.adapt.MaxFactor))
		}
		if n > 0 {
			g.lanes[i].history = make([]int32, n)
		}
	}
	return g
}

// Depth is the number of calls queued for model.
func (g *Gateway) Depth(model int32) int { return g.lanes[model].queue.Len() }

// Backoff is the number of calls for model waiting out a backoff.
func (g *Gateway) Backoff(model int32) int { return g.lanes[model].backoff }

// held is the depth a policy reads: every call the gateway holds for the
// model, queued or waiting out a backoff (only the queued ones with
// depth_signal: queued).
func (g *Gateway) held(model int32) int {
	l := &g.lanes[model]
	if g.queuedOnly {
		return l.queue.Len()
	}
	return l.queue.Len() + l.backoff
}

func (g *Gateway) backoffStarted(model int32) { g.lanes[model].backoff++ }
func (g *Gateway) backoffEnded(model int32)   { g.lanes[model].backoff-- }

// peek is the call at the head of model's queue.
func (g *Gateway) peek(model int32) (int32, bool) {
	q := &g.lanes[model].queue
	if q.Len() == 0 {
		return 0, false
	}
	return *q.At(0), true
}

// push queues a call at the tail of its model's queue and returns the depth.
func (g *Gateway) push(model, c int32) int {
	q := &g.lanes[model].queue
	q.Push(c)
	return q.Len()
}

// pop takes the next call to send, if the in-flight limit allows one.
func (g *Gateway) pop(model int32) (int32, bool) { return g.lanes[model].pop() }

// pop takes the lane's next call to send, if its in-flight limit allows one.
func (l *gatewayLane) pop() (int32, bool) {
	if l.inflight >= l.limit || l.queue.Len() == 0 {
		return 0, false
	}
	return l.queue.Pop(), true
}

// sent and answered count a call in and out of the in-flight limit.
func (g *Gateway) sent(model int32)     { g.lanes[model].inflight++ }
func (g *Gateway) answered(model int32) { g.lanes[model].inflight-- }

// retryDelay is the backoff before the next try of a call rejected on its
// attempts-th try: min(max, base × multiplier^(attempts-1) + jitter_add × U′)
// × (1 − jitter × U),
// and with honour_retry_after never less than the provider's retryAfter.
func (g *Gateway) retryDelay(attempts int32, retryAfter Time) Time {
	return backoffDelay(g.retry, g.rn, attempts, retryAfter)
}

// backoffDelay is the backoff of retry settings r, jitter drawn from rn.
func backoffDelay(r *scenario.RetryConfig, rn *rand.Rand, attempts int32, retryAfter Time) Time {
	d := float64(r.Base) * math.Pow(r.Multiplier, float64(attempts-1))
	if r.JitterAdd > 0 { // drawn only when set: other runs' draws unchanged
		d += float64(r.JitterAdd) * rn.Float64()
	}
	d = math.Min(d, float64(r.Max))
	d *= 1 - r.Jitter*rn.Float64()
	delay := FromDuration(time.Duration(d))
	if *r.HonourRetryAfter && retryAfter > delay {
		delay = retryAfter
	}
	return delay
}

// sampleDepth records the depth readings a delayed metrics pipeline serves.
func (g *Gateway) sampleDepth(now Time) {
	n := len(g.sampleTimes)
	g.head = (g.head + 1) % n
	g.sampleTimes[g.head] = now
	for i := range g.lanes {
		g.lanes[i].history[g.head] = int32(g.held(int32(i)))
	}
	g.count = min(g.count+1, n)
}

// reading is the depth a policy reads at now: the newest reading at least
// depth_delay old, as a lagging metrics pipeline would serve it, and when it
// was taken.
func (g *Gateway) reading(model int32, now Time) (int, time.Time) {
	if g.spells != nil {
		if _, in := g.stale(now); in {
			l := &g.lanes[model]
			return l.frozenD, l.frozenAt
		}
	}
	return g.liveReading(model, now)
}

// stampedReading is reading when it is the live depth stamped at now (no
// stale spells, no delay, a lane read after the decision's first): small
// enough for the caller to take inline.
func (g *Gateway) stampedReading(model int32, now Time) (int, time.Time, bool) {
	if g.spells != nil || g.sampleTimes != nil || !g.stamped || g.stampAt != now {
		return 0, time.Time{}, false
	}
	return g.held(model), g.stamp, true
}

// staleStart freezes every lane's reading as the pipeline has it at now,
// the start of a stale spell: the spell serves it until it ends.
func (g *Gateway) staleStart(now Time) {
	for i := range g.lanes {
		l := &g.lanes[i]
		l.frozenD, l.frozenAt = g.liveReading(int32(i), now)
	}
}

// liveReading is reading without stale spells.
func (g *Gateway) liveReading(model int32, now Time) (int, time.Time) {
	l := &g.lanes[model]
	if g.sampleTimes == nil {
		if !g.stamped || g.stampAt != now {
			g.stamp, g.stampAt, g.stamped = Epoch.Add(now.Duration()), now, true
		}
		return g.held(model), g.stamp
	}
	cutoff := now - g.delay
	n := len(g.sampleTimes)
	for k := 0; k < g.count; k++ {
		i := (g.head - k + n) % n
		if g.sampleTimes[i] <= cutoff {
			return int(l.history[i]), Epoch.Add(g.sampleTimes[i].Duration())
		}
	}
	return 0, time.Time{} // no reading yet: a policy must treat it as stale
}
