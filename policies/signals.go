package policies

import "time"

// LatencySignals is an optional extension of State for the controllers that
// read more than the gateway depth (ControllerGradient reads the latency,
// ControllerInspect the 429s). A State that does not implement it gives no
// latency (those controllers hold) and no 429s.
type LatencySignals interface {
	// CallLatency is the mean time, in seconds, from a call entering the
	// gateway queue to its answer, over the model's calls answered since the
	// previous reading, and the time that reading was taken (zero: none yet,
	// or no call answered).
	CallLatency(m ModelID) (seconds float64, asOf time.Time)
	// Throttled is the number of the model's tries rejected with a 429 since
	// the start, as last reported.
	Throttled(m ModelID) int64
}

// signals is what one controller step reads of one model.
type signals struct {
	now      time.Time
	depth    float64 // smoothed if configured
	running  int
	binding  bool
	latency  float64 // 0: none
	latFresh bool    // a new latency reading since the last step
	new429   int64   // 429s since the last step
	model    ModelID
	quota    QuotaState // nil: no quota signal read (none offered, or ignore_quota)
}

// roomToRaise says whether raising the model's limit to n leaves room in
// its quota windows. The model's own use of a window (QuotaReading.ModelUse)
// comes from its running jobs, so filling n slots adds about
// (n − running) ÷ running of it; a raise that would fill a window to its
// limit is held. Without this, a tick with no 429 reads as room: a window
// shows a raise's calls only after the jobs have started and called, so
// clean ticks raise again and again until one window's worth of raises
// lands at once, as a storm of 429s on everyone who shares the quota.
func (in *signals) roomToRaise(n int) bool {
	if in.quota == nil || n <= in.running {
		return true
	}
	q := in.quota.Quota(in.model)
	if q.BelowShare {
		return true // the lanes above their share give way (their 429s lower them)
	}
	grow := float64(n-in.running) / float64(max(in.running, 1))
	for d, use := range q.Use {
		if use > 0 && use+grow*q.ModelUse[d] >= 1 {
			return false
		}
	}
	return true
}

// readSignals reads the optional latency and 429 signals of model m into in,
// and keeps what the next step needs to tell new readings from old ones.
func readSignals(state State, m ModelID, ls *limitState, in *signals) {
	ls2, ok := state.(LatencySignals)
	if !ok {
		return
	}
	lat, at := ls2.CallLatency(m)
	if !at.IsZero() && at.After(ls.latAsOf) && lat > 0 {
		in.latency, in.latFresh = lat, true
		ls.latAsOf = at
	}
	n := ls2.Throttled(m)
	if n > ls.seen429 {
		in.new429 = n - ls.seen429
	}
	ls.seen429 = n
}
