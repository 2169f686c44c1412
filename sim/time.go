package sim

import (
	"math"
	"time"
)

// Time is a point on (or a span of) the simulator's virtual clock, in
// microseconds. The zero Time is the start of a run.
type Time int64

// Common Time units.
const (
	Microsecond Time = 1
	Millisecond      = 1000 * Microsecond
	Second           = 1000 * Millisecond
	Minute           = 60 * Second
	Hour             = 60 * Minute
)

// Seconds returns t as a floating-point number of seconds.
func (t Time) Seconds() float64 {
	return float64(t) / float64(Second)
}

// Duration returns t as a time.Duration. Times beyond about ±292 years
// overflow, as time.Duration does.
func (t Time) Duration() time.Duration {
	return time.Duration(t) * time.Microsecond
}

// FromDuration converts d to a Time, rounding to the nearest microsecond
// (halfway values round away from zero).
func FromDuration(d time.Duration) Time {
	// Below 2^62 ns (146 years) the rounding cannot overflow: half a
	// microsecond added, then one unsigned division by a constant, in place
	// of Round's remainder and branches (a call, as Round does not inline).
	if uint64(d) < 1<<62 {
		return Time((uint64(d) + uint64(time.Microsecond/2)) / uint64(time.Microsecond))
	}
	return fromDurationRound(d)
}

// fromDurationRound is FromDuration by time.Duration.Round, for negative
// and huge durations (Round saturates those near the int64 bounds).
func fromDurationRound(d time.Duration) Time {
	return Time(d.Round(time.Microsecond) / time.Microsecond)
}

// FromSeconds converts s seconds to a Time, rounding to the nearest
// microsecond (halfway values round away from zero).
func FromSeconds(s float64) Time {
	return Time(math.Round(s * float64(Second)))
}

// String formats t like a time.Duration, e.g. "1m30.5s".
func (t Time) String() string {
	return t.Duration().String()
}

// wallClock is Time.Wall for one run: Epoch read once, when the clock is
// made, and the last instant kept, for an arrival's Enqueue and Decide, or
// a finish's Finished and Decide, are given the same one.
type wallClock struct {
	at   Time
	wall time.Time
	unix int64 // Epoch's Unix seconds, when fast
	fast bool  // Epoch in UTC on a whole second: Wall's own condition
}

// newWallClock reads Epoch.
func newWallClock() wallClock {
	return wallClock{at: -1, unix: Epoch.Unix(), fast: Epoch.Location() == time.UTC && Epoch.Nanosecond() == 0}
}

// of is t.Wall() for the Epoch read when c was made.
func (c *wallClock) of(t Time) time.Time {
	if t != c.at {
		c.at = t
		if t >= 0 && c.fast {
			u := uint64(t)
			c.wall = time.Unix(c.unix+int64(u/uint64(Second)), int64(u%uint64(Second))*int64(time.Microsecond)).UTC()
		} else {
			c.wall = t.Wall()
		}
	}
	return c.wall
}

// Wall returns the instant t stands for on the wall clock,
// Epoch.Add(t.Duration()), as policies are given it at every decision.
// For t >= 0 and Epoch in UTC on a whole second (as it is) the same value
// is built from Epoch's Unix seconds, at a fraction of Add's cost.
func (t Time) Wall() time.Time {
	if t < 0 || Epoch.Location() != time.UTC || Epoch.Nanosecond() != 0 {
		return Epoch.Add(t.Duration())
	}
	u := uint64(t) // unsigned: a cheaper division
	return time.Unix(Epoch.Unix()+int64(u/uint64(Second)), int64(u%uint64(Second))*int64(time.Microsecond)).UTC()
}
