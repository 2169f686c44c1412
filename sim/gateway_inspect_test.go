package sim

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/evalsched/lab/scenario"
)

// refController is inspect_ai's AdaptiveConcurrencyController transcribed
// again from src/inspect_ai/util/_concurrency.py (0.3.241) for this test:
// notify_success, notify_retry, and the saturation peak taken on acquire.
type refController struct {
	limit, min, max    int
	success, peak      int
	firstRetry         bool
	cooldownUntil      float64
	cooldown, decrease float64
	scaleUp            float64
}

func (c *refController) acquire(now float64, borrowed int) {
	if now >= c.cooldownUntil && borrowed > c.peak {
		c.peak = borrowed
	}
}

func (c *refController) notifySuccess(now float64) {
	if now < c.cooldownUntil {
		return
	}
	c.success++
	old := c.limit
	roundSize := old
	if roundSize < 4 {
		roundSize = 4
	}
	if c.success < roundSize {
		return
	}
	peak := c.peak
	c.peak, c.success = 0, 0
	if old > 0 && float64(peak) < 0.8*float64(old) {
		return
	}
	var n int
	if !c.firstRetry {
		n = old * 2
	} else {
		inc := int(float64(old)*c.scaleUp + 0.5)
		if inc < 1 {
			inc = 1
		}
		n = old + inc
		if n >= 10 {
			n = (n + 4) / 5 * 5
		}
	}
	if n > c.max {
		n = c.max
	}
	c.limit = n
}

func (c *refController) notifyRetry(now float64) {
	c.success, c.peak, c.firstRetry = 0, 0, true
	if now < c.cooldownUntil {
		return
	}
	t := int(float64(c.limit) * c.decrease)
	if t >= 10 {
		t = t / 5 * 5
	} else if t < 1 {
		t = 1
	}
	if t < c.min {
		t = c.min
	}
	c.limit = t
	c.cooldownUntil = now + c.cooldown
}

// TestInspectAdaptiveAgainstTheSource: random sequences of acquires,
// clean answers and rate limits move the gateway's limit exactly as the
// transcribed controller moves its own.
func TestInspectAdaptiveAgainstTheSource(t *testing.T) {
	for trial := range 200 {
		rng := rand.New(rand.NewPCG(uint64(trial), 3))
		cfg := scenario.InspectAdaptiveConfig{Min: 1 + rng.IntN(10), Max: 50 + rng.IntN(100), Cooldown: time.Duration(1+rng.IntN(20)) * time.Second, Decrease: 0.8, ScaleUp: 0.05}
		start := cfg.Min + rng.IntN(20)
		g := Gateway{lanes: make([]gatewayLane, 1), ia: &cfg}
		g.lanes[0].limit = start
		ref := &refController{limit: start, min: cfg.Min, max: cfg.Max, cooldown: cfg.Cooldown.Seconds(), decrease: 0.8, scaleUp: 0.05}
		now := 0.0
		for step := range 2000 {
			now += rng.ExpFloat64() * 0.05
			at := FromSeconds(now)
			switch r := rng.IntN(100); {
			case r < 45:
				g.lanes[0].inflight = min(g.lanes[0].limit, rng.IntN(g.lanes[0].limit+1)+1)
				g.iaAcquired(0, at)
				ref.acquire(now, g.lanes[0].inflight)
			case r < 98:
				g.iaSucceeded(0, at)
				ref.notifySuccess(now)
			default:
				g.iaRateLimited(0, at)
				ref.notifyRetry(now)
			}
			if g.lanes[0].limit != ref.limit {
				t.Fatalf("trial %d step %d: limit %d, the controller's %d", trial, step, g.lanes[0].limit, ref.limit)
			}
		}
	}
}

// TestBackoffJitterAdd: with jitter_add the delay is tenacity's
// wait_exponential_jitter: base·2^(n−1) + U(0, add), capped at max — within
// those bounds, the mean half-way (checked over many draws).
func TestBackoffJitterAdd(t *testing.T) {
	hon := false
	r := &scenario.RetryConfig{Base: 3 * time.Second, Max: 30 * time.Minute, Multiplier: 2, JitterAdd: 3 * time.Second, HonourRetryAfter: &hon}
	rn := rand.New(rand.NewPCG(1, 2))
	for n := int32(1); n <= 12; n++ {
		lo := min(3*float64(int(1)<<(n-1)), 1800)
		hi := min(lo+3, 1800)
		sum := 0.0
		const k = 4000
		for range k {
			d := backoffDelay(r, rn, n, 0).Duration().Seconds()
			if d < lo-1e-6 || d > hi+1e-6 {
				t.Fatalf("attempt %d: %g s outside [%g, %g]", n, d, lo, hi)
			}
			sum += d
		}
		if want := (lo + hi) / 2; hi < 1800 && (sum/k < want-0.05 || sum/k > want+0.05) {
			t.Errorf("attempt %d: mean %g s, want %g", n, sum/k, want)
		}
	}
}
