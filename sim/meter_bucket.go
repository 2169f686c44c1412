package sim

import (
	"math"
	"math/bits"
)

// tokenBucket is a quota metered as a token bucket: capacity cap (the
// limit, or with a burst interval limit × burst / span), full at its
// start, refilled continuously at limit per span (so an empty bucket of
// the whole limit is full again one span later); a try is admitted when
// the bucket holds its cost, which it takes. Rejected tries burned against a request
// quota and declared history may take it below zero (a debt the refill
// pays first).
//
// Exact on the integer microsecond clock: the level is whole + frac/span
// tokens with 0 <= frac < span, and a refill over dt microseconds adds
// limit × dt / span, computed in 128 bits, so no rounding ever happens and
// the wait for a cost is the exact first microsecond at which the bucket
// holds it. limit is whole (scenario checks it) and at most 2^40.
type tokenBucket struct {
	limit uint64 // the refill per span
	cap   uint64 // capacity (at most limit)
	span  uint64 // microseconds
	whole int64  // whole tokens held (negative: a debt)
	frac  uint64 // and frac/span of one more
	at    Time   // the time the level is of
}

func newTokenBucket(limit, capacity float64, span Time, at Time) tokenBucket {
	return tokenBucket{limit: uint64(limit), cap: uint64(capacity), span: uint64(span), whole: int64(capacity), at: at}
}

// refilled is the level at now (>= b.at), without changing the bucket.
func (b *tokenBucket) refilled(now Time) (whole int64, frac uint64) {
	whole, frac = b.whole, b.frac
	if now <= b.at || whole >= int64(b.cap) {
		return whole, frac
	}
	dt := uint64(now - b.at)
	// Past the time a refill from the level would take the bucket is full;
	// capping dt there keeps the product in range.
	need := uint64(int64(b.cap)-whole) + 1 // whole tokens short of full, +1 for frac
	if dt/need >= b.span/b.limit+1 {
		return int64(b.cap), 0
	}
	hi, lo := bits.Mul64(b.limit, dt)
	lo, carry := bits.Add64(lo, frac, 0)
	hi += carry
	q, r := bits.Div64(hi, lo, b.span)
	whole += int64(q)
	if whole >= int64(b.cap) {
		return int64(b.cap), 0
	}
	return whole, r
}

// advance brings the level up to now.
func (b *tokenBucket) advance(now Time) {
	if now > b.at {
		b.whole, b.frac = b.refilled(now)
		b.at = now
	}
}

// take removes amt whole tokens (the level may go below zero).
func (b *tokenBucket) take(amt float64) { b.whole -= int64(amt) }

// give returns amt whole tokens, up to the capacity.
func (b *tokenBucket) give(amt float64) {
	b.whole += int64(amt)
	if b.whole >= int64(b.cap) {
		b.whole, b.frac = int64(b.cap), 0
	}
}

// wait is how long from b.at until the bucket holds amt: 0 if it does,
// noWait if it never can (amt is above the capacity).
func (b *tokenBucket) wait(amt float64) Time {
	a := int64(amt)
	if a > int64(b.cap) {
		return noWait
	}
	if b.whole >= a {
		return 0
	}
	// The first dt with limit × dt >= (a − whole) × span − frac.
	hi, lo := bits.Mul64(uint64(a-b.whole), b.span)
	lo, borrow := bits.Sub64(lo, b.frac, 0)
	hi -= borrow
	if hi >= b.limit { // beyond 2^64 µs: never in any run
		return Time(math.MaxInt64 / 4)
	}
	q, r := bits.Div64(hi, lo, b.limit)
	if r > 0 {
		q++
	}
	return Time(q)
}

// used is the share of the capacity not held at now (0: full).
func (b *tokenBucket) used(now Time) float64 {
	whole, frac := b.refilled(now)
	held := float64(whole) + float64(frac)/float64(b.span)
	return (float64(b.cap) - held) / float64(b.cap)
}

// noWait is the wait of a try that can never be admitted.
const noWait Time = -1
