package policies

import (
	"math"
	"slices"
	"time"
)

// LatencySignals is an optional extension of State for the controllers that
// read more than the gateway depth (ControllerGradient reads the latency,
// ControllerInspect the 429s). A State that does not implement it gives no
// latency (those controllers hold) and no 429s.
type LatencySignals interface {
	// CallLatency is the mean time, in seconds, from a call entering the
	// gateway queue to its answer, over the model's calls answered since the
	// previous Decide, and the time that reading was taken (zero: none yet,
	// or no call answered). Reading it changes nothing.
	CallLatency(m ModelID) (seconds float64, asOf time.Time)
	// Throttled is the number of the model's tries rejected with a 429 since
	// the start, as last reported.
	Throttled(m ModelID) int64
}

// signals is what one controller step reads of one model.
type signals struct {
	now     time.Time
	depth   float64 // smoothed if configured
	running int
	// ran holds the model's running count at its last ticks (this one
	// included), minute the ticks in a minute: the mean over them is the
	// jobs whose calls fill its per-minute quota windows now, worked out
	// only when a raise is weighed against them (nil: none ran).
	ran      *tickRing
	minute   int
	binding  bool
	latency  float64 // 0: none
	latFresh bool    // a new latency reading since the last step
	new429   int64   // 429s since the last step
	model    ModelID
	quota    QuotaState // nil: no quota signal read (none offered, or ignore_quota)
	hold     *rateHold  // the model's held per-job use (nil: job_rate_hold off)
	// quotaProbe is the fastest a limit may grow per tick once one of the
	// model's quota windows is quotaProbeAbove full: ×factor per
	// quota_dead_time (1: no cap).
	quotaProbe float64
}

// quotaProbeAbove is how full a quota window must be before raises slow to
// quotaProbe. A lane's young agent jobs call with short contexts and use
// about a third of the window they will once their contexts have grown
// (azure-production, seed 1, claude-opus-5: 0.22% of the TPM window per
// job while its limit climbed, 0.6% once settled), so a window a third
// full can already be full by the time the jobs started now have grown.
const quotaProbeAbove = 1.0 / 3

// rateHold keeps, per per-minute quota dimension, the highest share of the
// window one running job was seen to use, decaying with a half-life
// (job_rate_hold).
//
// A young agent job calls with a short context, so while a lane's jobs are
// mostly young (after a start, or a climb) the window shows a fraction of
// what they will use once their contexts have grown; the held rate is
// what the lane's jobs used when they were older.
type rateHold struct {
	halfLife time.Duration // 0: no hold
	rate     [NumDims]float64
	at       time.Time
}

// read folds in the share per job seen now and returns the held one.
func (h *rateHold) read(d int, now time.Time, cur float64) float64 {
	if h == nil {
		return cur
	}
	held := h.rate[d]
	if !h.at.IsZero() && now.After(h.at) {
		held *= math.Exp2(-float64(now.Sub(h.at)) / float64(h.halfLife))
	}
	h.rate[d] = max(cur, held)
	return h.rate[d]
}

// roomToRaise is the raise from l to n that the model's quota windows
// allow, and whether they leave room for it. The model's own use of a window (QuotaReading.ModelUse)
// comes from the jobs it ran over that window, R of them on average, so n
// jobs would use n ÷ R of it: room is left while
// use + (n − R) ÷ R × own use < 1. For the per-minute windows R is the
// mean running count over the last minute's ticks; for the daily ones the
// running count now. Without this, a tick with no 429 reads as room: a
// window shows a raise's calls only after the jobs have started and
// called, so clean ticks raise again and again until one window's worth of
// raises lands at once, as a storm of 429s on everyone who shares the
// quota. And with R the running count now, a limit that climbed within the
// minute is read as if the jobs just started already filled the window
// (they have not: it lags by up to a minute), so the climb runs on past
// the point where the window will be full.
//
// The raise is n, or less once a window is quotaProbeAbove full: the climb
// then probes at quotaProbe a tick at most, a window's feedback being
// slower than the depth's.
func (in *signals) roomToRaise(l, n int) (int, bool) {
	if in.quota == nil || n <= in.running {
		return n, true
	}
	q := in.quota.Quota(in.model)
	if in.quotaProbe > 1 && slices.Max(q.Use[:]) >= quotaProbeAbove {
		n = min(n, int(math.Round(growAtMost(float64(l), in.quotaProbe))))
	}
	if q.BelowShare {
		return n, true // the lanes above their share give way (their 429s lower them)
	}
	room := true
	for d, use := range q.Use {
		own := q.ModelUse[d]
		var perJob float64 // of the window, per job behind it
		if d == DimRPM || d == DimTPM {
			perJob = in.hold.read(d, in.now, own/max(in.minuteRunning(), 1))
		} else {
			perJob = own / max(float64(in.running), 1)
		}
		room = room && !(use > 0 && use-own+float64(n)*perJob >= 1)
	}
	if in.hold != nil {
		in.hold.at = in.now
	}
	return n, room
}

// minuteRunning is the mean of the model's running count over the last
// minute's ticks.
func (in *signals) minuteRunning() float64 {
	if in.ran == nil {
		return 0
	}
	return in.ran.mean(in.minute)
}

// readsLatencySignals reports whether the controller kind reads the
// latency or 429 signals (LatencySignals) at all.
func (k ControllerKind) readsLatencySignals() bool {
	return k == ControllerGradient || k == ControllerInspect
}

// readSignals reads the optional latency and 429 signals of model m into in,
// and keeps what the next step needs to tell new readings from old ones.
func readSignals(ls2 LatencySignals, m ModelID, ls *limitState, in *signals) {
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
