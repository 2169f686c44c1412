package sim

// A quota pool's admission of a try: the general path (every kind of
// window, budgets, splits, acceleration limits) and the plain pool's own.

// admit checks every window; if all have room the try is counted in each
// and ok is true, else retryAfter says when it would fit (negative: never).
func (o *quotaPool) admit(now Time, tokens float64, src source, model int32) (retryAfter Time, ok bool) {
	return o.admitCost(now, tryCost{in: tokens}, src, model)
}

// admitCost is admit for a try of cost c: checkCost's steps written out
// (a call fewer on every try), then commitCost's; in a plain pool without
// an acceleration limit (the common one), admitPlain's.
func (o *quotaPool) admitCost(now Time, c tryCost, src source, model int32) (retryAfter Time, ok bool) {
	if o.plain && o.accel == nil {
		return o.admitPlain(now, c, src, model)
	}
	return o.admitAny(now, c, src, model)
}

func (o *quotaPool) admitAny(now Time, c tryCost, src source, model int32) (retryAfter Time, ok bool) {
	if o.budget > 0 && o.spent+c.in+c.out > o.budget {
		return neverFits, false
	}
	o.expire(now)
	fits := true
	for i := range o.windows {
		q := &o.windows[i]
		if q.bucket != nil || !q.admits(q.sum, q.amount(c)) {
			fits = false
			break
		}
	}
	switch {
	case !fits:
		retryAfter = o.waits(now, c)
	case o.accel != nil:
		retryAfter = o.accel.wait(now, c)
	}
	if retryAfter != 0 {
		return retryAfter, false
	}
	if o.accel == nil && !o.split { // commitCost's common case, a call fewer
		o.spent += c.in + c.out
		o.push(newTry(now, c.in+c.out, src, model, entryTry))
		return 0, true
	}
	o.commitCost(now, c, src, model)
	return 0, true
}

// admitPlain is admitAny in a plain pool without an acceleration limit:
// the same decision, without what such a pool cannot have. Its windows
// count requests (a try is 1) or tokens (its input + output), and hold
// every try. Its logs are brought up to now only when their oldest entry
// is a lag overdue (quotaLog.expireLate): a window's sum then still holds
// entries that have aged out, never less than its exact sum, so a try
// such sums let in, the exact ones let in too (a sum only falls as entries
// age out; both admission rules let in more at a lower sum). The try is
// added to each window's sum as the window is checked; if one refuses it,
// the sums are taken back (each whole: exactly as they were) and
// admitExact decides on exact sums, as admitAny would. The rare steps (an
// expiry, a refusal, a new page) are calls in tail position or not
// inlined, so the common one keeps its values in registers.
func (o *quotaPool) admitPlain(now Time, c tryCost, src source, model int32) (retryAfter Time, ok bool) {
	l0, l1 := o.log0, o.log1
	if l0 == nil {
		return 0, true // no window
	}
	if now-l0.lag >= l0.due || l1 != nil && now-l1.lag >= l1.due {
		return o.admitLate(now, c, src, model)
	}
	tokens := c.in + c.out
	ws := o.windows
	for i := range ws {
		q := &ws[i]
		a := tokens
		if q.one {
			a = 1
		}
		if !q.admits(q.sum, a) {
			return o.refusedPlain(now, c, src, model, i)
		}
		q.sum += a
	}
	e := newTry(now, tokens, src, model, entryTry)
	if !l0.put(&e) {
		l0.record(&e)
	}
	if l1 != nil && !l1.put(&e) {
		l1.record(&e)
	}
	return 0, true
}

// admitLate is admitPlain once a log is a lag overdue: the logs brought up
// to now, then admitPlain's decision (on logs no longer overdue).
//
//go:noinline
func (o *quotaPool) admitLate(now Time, c tryCost, src source, model int32) (retryAfter Time, ok bool) {
	o.log0.expireLate(now)
	if l1 := o.log1; l1 != nil {
		l1.expireLate(now)
	}
	return o.admitPlain(now, c, src, model)
}

// refusedPlain is admitPlain after window i refused the try: the windows
// before it take it back, and the refusal stands if the sums are exact,
// else admitExact decides.
//
//go:noinline
func (o *quotaPool) refusedPlain(now Time, c tryCost, src source, model int32, i int) (retryAfter Time, ok bool) {
	tokens := c.in + c.out
	for j := range i {
		if q := &o.windows[j]; q.one {
			q.sum--
		} else {
			q.sum -= tokens
		}
	}
	if l0, l1 := o.log0, o.log1; now >= l0.due || l1 != nil && now >= l1.due {
		return o.admitExact(now, c, src, model) // the sums may be above the exact ones
	}
	// The sums are exact: the refusal stands.
	if retryAfter = o.waits(now, c); retryAfter != 0 {
		return retryAfter, false
	}
	return o.countPlain(now, c, src, model) // waits says it fits after all
}

// admitExact is admitPlain's decision on exact sums: its logs brought up
// to now, a try every window admits is counted, else waits says when it
// would fit (and one it says fits now is counted).
func (o *quotaPool) admitExact(now Time, c tryCost, src source, model int32) (retryAfter Time, ok bool) {
	o.expire(now)
	tokens := c.in + c.out
	for i := range o.windows {
		q := &o.windows[i]
		a := tokens
		if q.one {
			a = 1
		}
		if !q.admits(q.sum, a) {
			if retryAfter = o.waits(now, c); retryAfter != 0 {
				return retryAfter, false
			}
			break
		}
	}
	return o.countPlain(now, c, src, model)
}

// countPlain counts an admitted try in a plain pool: its windows' sums,
// its readings and its place in each log.
func (o *quotaPool) countPlain(now Time, c tryCost, src source, model int32) (Time, bool) {
	tokens := c.in + c.out
	e := newTry(now, tokens, src, model, entryTry)
	for i := range o.windows {
		if q := &o.windows[i]; q.one {
			q.sum++
		} else {
			q.sum += tokens
		}
	}
	for _, l := range o.logs {
		l.record(&e)
	}
	return 0, true
}
