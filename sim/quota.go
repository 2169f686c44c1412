package sim

import "github.com/evalsched/lab/internal/ring"

// quotaWindow is one rolling-window quota of an organisation: the requests
// (or tokens) accepted in the last span may not exceed limit. Unlike a token
// bucket it never refills early: an entry frees its share exactly span after
// it was accepted, which is how a daily quota stays exhausted for hours.
type quotaWindow struct {
	limit   float64
	span    Time
	tokens  bool // counts tokens, else requests
	entries ring.Ring[quotaEntry]
	sum     float64
}

// orgState is one organisation's quota windows.
type orgState struct {
	windows []quotaWindow
}

// newOrgState has a window for each quota the organisation sets (0 = none).
func newOrgState(o OrgConfig) orgState {
	var ws []quotaWindow
	for _, q := range []struct {
		limit  float64
		span   Time
		tokens bool
	}{{o.RPM, Minute, false}, {o.TPM, Minute, true}, {o.RPD, 24 * Hour, false}, {o.TPD, 24 * Hour, true}} {
		if q.limit > 0 {
			ws = append(ws, quotaWindow{limit: q.limit, span: q.span, tokens: q.tokens})
		}
	}
	return orgState{windows: ws}
}

type quotaEntry struct {
	t   Time
	amt float64
}

func (q *quotaWindow) expire(now Time) {
	for q.entries.Len() > 0 && q.entries.Peek().t+q.span <= now {
		q.sum -= q.entries.Pop().amt
	}
	if q.entries.Len() == 0 {
		q.sum = 0 // no drift from float sums
	}
}

// wait is how long until amt fits; 0 if it fits now, -1 if it never can.
func (q *quotaWindow) wait(now Time, amt float64) Time {
	if amt > q.limit {
		return -1
	}
	if q.sum+amt <= q.limit {
		return 0
	}
	freed := 0.0
	for i := 0; i < q.entries.Len(); i++ {
		e := q.entries.At(i)
		freed += e.amt
		if q.sum-freed+amt <= q.limit {
			return e.t + q.span - now
		}
	}
	return q.span
}

// admit checks every window of the organisation; if all have room the try is
// counted in each and ok is true, else retryAfter says when it would fit
// (negative: never, the try is larger than a quota).
func (o *orgState) admit(now Time, tokens float64) (retryAfter Time, ok bool) {
	for i := range o.windows {
		q := &o.windows[i]
		q.expire(now)
		amt := 1.0
		if q.tokens {
			amt = tokens
		}
		d := q.wait(now, amt)
		if d < 0 {
			return -1, false
		}
		retryAfter = max(retryAfter, d)
	}
	if retryAfter > 0 {
		return retryAfter, false
	}
	for i := range o.windows {
		q := &o.windows[i]
		amt := 1.0
		if q.tokens {
			amt = tokens
		}
		q.entries.Push(quotaEntry{t: now, amt: amt})
		q.sum += amt
	}
	return 0, true
}

// use is the fullest window's share of its limit at now.
func (o *orgState) use(now Time) float64 {
	u := 0.0
	for i := range o.windows {
		q := &o.windows[i]
		q.expire(now)
		u = max(u, q.sum/q.limit)
	}
	return u
}
