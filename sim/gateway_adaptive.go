package sim

import (
	"time"

	"github.com/evalsched/lab/policies"
)

// adaptive is one lane's adaptive limit state.
type adaptive struct {
	credit  float64 // fractional increase not yet applied
	lastCut Time
	hi      int
}

// congested applies a congestion signal to model's limit.
func (g *Gateway) congested(model int32, now Time) {
	a := g.adapt
	if a == nil {
		return
	}
	l := &g.lanes[model]
	if l.ad.lastCut != 0 && now-l.ad.lastCut < FromDuration(a.Window) {
		return
	}
	l.ad.lastCut, l.ad.credit = now, 0
	l.limit = max(1, int(float64(l.limit)*a.Decrease))
}

// clean applies a call served at once to model's limit.
func (g *Gateway) clean(model int32) {
	a := g.adapt
	if a == nil {
		return
	}
	l := &g.lanes[model]
	l.ad.credit += a.Increase / float64(l.limit)
	if l.ad.credit >= 1 {
		l.limit = min(l.limit+int(l.ad.credit), l.ad.hi)
		l.ad.credit -= float64(int(l.ad.credit))
	}
}

// InflightLimit is model's gateway in-flight limit now.
func (g *Gateway) InflightLimit(model int32) int { return g.lanes[model].limit }

// stale reports whether now falls in a stale spell, and its start.
func (g *Gateway) stale(now Time) (Time, bool) {
	for _, s := range g.spells {
		if now >= FromDuration(s.From) && now < FromDuration(s.To) {
			return FromDuration(s.From), true
		}
	}
	return 0, false
}

// CallLatency implements policies.LatencySignals: the mean time from
// creation to answer of the model's evaluation calls answered between the
// two previous decisions (the closed signal window), stamped with the
// depth reading's time (one metrics pipeline: stale together).
func (w *World) CallLatency(model policies.ModelID) (float64, time.Time) {
	win := w.gw.closed(int32(model))
	_, asOf := w.GatewayDepth(model)
	if win.latN == 0 {
		return 0, time.Time{}
	}
	return win.latSum / float64(win.latN), asOf
}

// Throttled implements policies.LatencySignals: the model's evaluation
// tries rejected with a 429 since the start.
func (w *World) Throttled(model policies.ModelID) int64 { return w.gw.lanes[model].throttled }

// InflightLimit implements policies.InflightLimits: the model's gateway
// in-flight limit now.
func (w *World) InflightLimit(model policies.ModelID) int { return w.gw.lanes[model].limit }
