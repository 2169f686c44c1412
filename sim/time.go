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
