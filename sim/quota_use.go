package sim

import (
	"math"
	"time"

	"github.com/evalsched/lab/scenario"
)

// use is the fullest window's share of its limit at now.
func (o *quotaPool) use(now Time) float64 {
	u := 0.0
	o.expire(now)
	for i := range o.windows {
		q := &o.windows[i]
		if q.bucket != nil {
			u = max(u, q.bucket.used(now))
			continue
		}
		u = max(u, q.sum/q.limit)
	}
	return u
}

// dimUse is, per dimension, the window's use at now as a share of its
// limit: by everyone and by one source (0 where no quota is set). It reads
// without expiring entries, so reading never changes the windows' sums.
// A token bucket reads as its window does (what it counted over the last
// span ÷ its limit, the rate it is taking), not as its deficit: the share
// a source or a model holds (by, modelUse) is a window sum, and a rule
// that adds a lane's share to the whole must read both in one unit (at a
// steady 90% of the limit a bucket's deficit is near 0, its window 0.9).
func (o *quotaPool) dimUse(now Time, src source) (all, by [scenario.NumDims]float64) {
	for i := range o.windows {
		q := &o.windows[i]
		sum, of := q.liveOf(now, src)
		all[q.dim] = sum / q.limit
		by[q.dim] = of / q.limit
	}
	return all, by
}

// dimAll is dimUse's use by everyone alone: the windows' sums, without
// the log's tallies (tally).
func (o *quotaPool) dimAll(now Time) (all [scenario.NumDims]float64) {
	for i := range o.windows {
		q := &o.windows[i]
		all[q.dim] = q.liveSum(now) / q.limit
	}
	return all
}

// modelUse is, per dimension, model's own evaluation entries in the window
// at now as a share of its limit (0 where no quota is set).
func (o *quotaPool) modelUse(now Time, model int32) (by [scenario.NumDims]float64) {
	for i := range o.windows {
		q := &o.windows[i]
		by[q.dim] = q.modelLive(now, model) / q.limit
	}
	return by
}

// modelLive is model's sum at now, leaving out entries that have expired
// (as live does: reading must not move the window).
func (q *quotaWindow) modelLive(now Time, model int32) float64 {
	if q.fixed && now >= q.resetAt {
		return 0
	}
	v := q.modelSum(model)
	for i, end := q.next, q.log.end(); !q.fixed && i < end; i++ {
		e := q.log.at(i)
		if e.t+q.span > now {
			break
		}
		if int32(e.model) == model && q.holds(e.kind) {
			v -= q.of(e)
		}
	}
	return max(v, 0)
}

// liveOf is the window's sum and its sum of the entries of src at now,
// leaving out entries that have expired.
func (q *quotaWindow) liveOf(now Time, src source) (sum, of float64) {
	if q.fixed {
		if now >= q.resetAt {
			return 0, 0
		}
		return q.sum, q.bySrc[src]
	}
	sum, of = q.sum, q.srcSum(src)
	for i, end := q.next, q.log.end(); i < end; i++ {
		e := q.log.at(i)
		if e.t+q.span > now {
			break
		}
		if q.holds(e.kind) {
			a := q.of(e)
			sum -= a
			if e.src == src {
				of -= a
			}
		}
	}
	return max(sum, 0), of
}

// liveSum is liveOf's sum alone.
func (q *quotaWindow) liveSum(now Time) float64 {
	if q.fixed {
		if now >= q.resetAt {
			return 0
		}
		return q.sum
	}
	sum := q.sum
	for i, end := q.next, q.log.end(); i < end; i++ {
		e := q.log.at(i)
		if e.t+q.span > now {
			break
		}
		if q.holds(e.kind) {
			sum -= q.of(e)
		}
	}
	return max(sum, 0)
}

// limit is the pool's limit in a dimension (0: none).
func (o *quotaPool) limit(dim int) float64 {
	for i := range o.windows {
		if o.windows[i].dim == dim {
			return o.windows[i].limit
		}
	}
	return 0
}

// seedHistory counts usage declared before the run: requests and tokens
// spread minute by minute over the 24 hours before virtual time 0, in
// proportion to the hourly weights (flat when none) of the clock hour.
func (o *quotaPool) seedHistory(h *scenario.QuotaHistory, clock time.Duration) {
	if h == nil || (h.Requests == 0 && h.Tokens == 0) {
		return
	}
	var w [1440]float64
	total := 0.0
	for m := range w {
		t := -Time(1440-m) * Minute
		w[m] = 1
		if len(h.Hourly) == 24 {
			tod := ((FromDuration(clock)+t)%(24*Hour) + 24*Hour) % (24 * Hour)
			w[m] = h.Hourly[int(tod/Hour)]
		}
		total += w[m]
	}
	// Whole requests and tokens per minute, apportioned by cumulative
	// rounding: each minute within one of its exact share, the day summing
	// to the declared totals. Whole amounts keep every window sum exact.
	var cumReq, cumTok [1441]float64
	cum := 0.0
	for m := range w {
		cum += w[m]
		cumReq[m+1] = math.Round(h.Requests * cum / total)
		cumTok[m+1] = math.Round(h.Tokens * cum / total)
	}
	for _, l := range o.logs {
		q := l.windows[0] // the log's windows share span, fixedness and reset
		for m := range w {
			t := -Time(1440-m) * Minute
			if q.fixed && t < q.resetAt-q.span {
				continue
			}
			if x := cumReq[m+1] - cumReq[m]; x > 0 {
				l.pushHistory(t, x, entryHistRequests)
			}
			if x := cumTok[m+1] - cumTok[m]; x > 0 {
				l.pushHistory(t, x, entryHistTokens)
			}
		}
	}
	o.expire(0)
}
