package sim

// inspectAdaptive is one lane's state of inspect_ai's adaptive connections
// controller (scenario.InspectAdaptiveConfig, whose comment cites the
// source): the clean calls of the current round, the most calls in flight
// during it, whether a rate limit has been met (slow start ends then),
// and the end of the cooldown after the last cut.
type inspectAdaptive struct {
	successes, peak int
	limited         bool
	cooldownUntil   Time
}

// iaAcquired: a call of model took an in-flight slot (inspect's
// _SaturationTrackingLimiter records the peak on acquire, outside a
// cooldown).
func (g *Gateway) iaAcquired(model int32, now Time) {
	if g.ia == nil {
		return
	}
	l := &g.lanes[model]
	if now >= l.ia.cooldownUntil {
		l.ia.peak = max(l.ia.peak, l.inflight)
	}
}

// iaSucceeded: a call of model was answered on its first try
// (notify_success).
func (g *Gateway) iaSucceeded(model int32, now Time) {
	if g.ia == nil {
		return
	}
	l := &g.lanes[model]
	if now < l.ia.cooldownUntil {
		return
	}
	l.ia.successes++
	old := l.limit
	if l.ia.successes < max(old, 4) {
		return
	}
	peak := l.ia.peak
	l.ia.peak, l.ia.successes = 0, 0
	if old > 0 && float64(peak) < 0.8*float64(old) {
		return
	}
	if !l.ia.limited {
		l.limit = min(2*old, g.ia.Max)
		return
	}
	inc := max(1, int(float64(old)*g.ia.ScaleUp+0.5))
	l.limit = min(ceilNice(old+inc), g.ia.Max)
}

// iaRateLimited: a try of a call of model met a rate limit (notify_retry).
func (g *Gateway) iaRateLimited(model int32, now Time) {
	if g.ia == nil {
		return
	}
	l := &g.lanes[model]
	l.ia.successes, l.ia.peak, l.ia.limited = 0, 0, true
	if now < l.ia.cooldownUntil {
		return
	}
	l.limit = max(floorNice(int(float64(l.limit)*g.ia.Decrease)), g.ia.Min, 1)
	l.ia.cooldownUntil = now + FromDuration(g.ia.Cooldown)
}

// ceilNice and floorNice are inspect's _ceil_to_nice and _floor_to_nice:
// integers below 10, multiples of 5 from 10.
func ceilNice(v int) int {
	if v < 10 {
		return max(1, v)
	}
	return (v + 4) / 5 * 5
}

func floorNice(v int) int {
	if v < 10 {
		return max(1, v)
	}
	return v / 5 * 5
}
