package sim

// signalWindow is what the gateway tells a policy of one model's calls
// between two decisions: its tries (evaluation and production), those
// refused by a quota (429, from the provider or a virtual key), and the
// time from creation to answer of its evaluation calls answered.
//
// The world closes the open window when the policy decides
// (Gateway.closeSignals), and the policy reads the closed one: reading a
// signal never changes it, however often or seldom a policy reads.
type signalWindow struct {
	tries, rejected int
	latSum          float64 // seconds
	latN            int
}

// tried counts a try of a call on model.
func (g *Gateway) tried(model int32) { g.lanes[model].open.tries++ }

// rejected counts a try on model refused by a quota.
func (g *Gateway) rejected(model int32) { g.lanes[model].open.rejected++ }

// answeredCall takes an evaluation call's time from creation to answer
// into the latency signal.
func (g *Gateway) answeredCall(model int32, took Time) {
	w := &g.lanes[model].open
	w.latSum += took.Seconds()
	w.latN++
}

// closeSignals closes every lane's open window for the policy to read
// and opens a new one.
func (g *Gateway) closeSignals() {
	for i := range g.lanes {
		l := &g.lanes[i]
		l.closed, l.open = l.open, signalWindow{}
	}
}
