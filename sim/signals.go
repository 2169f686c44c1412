package sim

// signalWindow is what the gateway tells a policy of one model's calls
// between two decisions: its tries (evaluation and production), those
// refused by a quota (429, from the provider or a virtual key), and the
// time from creation to answer of its evaluation calls answered.
//
// The world closes the open windows when the policy decides
// (Gateway.closeSignals), and the policy reads the closed ones (closed):
// reading a signal never changes it, however often or seldom a policy
// reads. Closing is O(1) however many models there are: each lane's open
// window carries the decision it belongs to and is rolled over when it is
// next written (a policy deciding on every event closes windows at every
// event).
type signalWindow struct {
	rejected, tries int     // rejected first: a decision reads it with the clock
	latSum          float64 // seconds
	latN            int
}

// signalLane is one model's open signal window and its clock; the window
// before it, read and written only as decisions pass, is the lane's prev,
// kept apart so that what a decision reads of a lane shares one cache line
// (gatewayLane).
type signalLane struct {
	at   uint64       // the decision open is since
	open signalWindow // since decision at
}

// window is the model's open window, rolled over to the current decision.
func (g *Gateway) window(model int32) *signalWindow {
	l := &g.lanes[model]
	s := &l.sig
	if s.at != g.decisions {
		if s.at+1 == g.decisions {
			l.prev = s.open
		} else {
			l.prev = signalWindow{}
		}
		s.open, s.at = signalWindow{}, g.decisions
	}
	return &s.open
}

// closed is the window the policy reads: the model's calls between the
// two previous decisions. It changes nothing.
func (g *Gateway) closed(model int32) signalWindow {
	l := &g.lanes[model]
	s := &l.sig
	switch {
	case s.at == g.decisions:
		return l.prev
	case s.at+1 == g.decisions:
		return s.open
	}
	return signalWindow{}
}

// closedRejected is closed(model).rejected, without the window's copy.
func (g *Gateway) closedRejected(model int32) int {
	l := &g.lanes[model]
	s := &l.sig
	if s.at == g.decisions {
		return l.prev.rejected
	}
	if s.at+1 == g.decisions {
		return s.open.rejected
	}
	return 0
}

// tried counts a try of a call on model.
func (g *Gateway) tried(model int32) { g.window(model).tries++ }

// rejected counts a try on model refused by a quota.
func (g *Gateway) rejected(model int32) { g.window(model).rejected++ }

// answeredCall takes an evaluation call's time from creation to answer
// into the latency signal.
func (g *Gateway) answeredCall(model int32, took Time) {
	w := g.window(model)
	w.latSum += took.Seconds()
	w.latN++
}

// closeSignals closes every lane's open window for the policy to read
// and opens a new one.
func (g *Gateway) closeSignals() { g.decisions++ }
