package sim

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestWallIsEpochAdd: Time.Wall builds the same time.Time value (==, so
// the same instant, location and representation) as Epoch.Add, on edge
// values and a million random times up to ~290 years.
func TestWallIsEpochAdd(t *testing.T) {
	ts := []Time{0, 1, Second - 1, Second, Second + 1, Hour, 7 * 24 * Hour, -1, -Second - 1, Time(1) << 53, Time(int64(time.Duration(1<<63-1) / time.Microsecond))}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		ts = append(ts, Time(r.Int64N(int64(time.Duration(1<<63-1)/time.Microsecond))))
	}
	for _, v := range ts {
		if got, want := v.Wall(), Epoch.Add(v.Duration()); got != want {
			t.Fatalf("Time(%d).Wall() = %#v, want Epoch.Add: %#v", v, got, want)
		}
	}
}

// TestWallOtherEpoch: an Epoch off UTC or a whole second takes Add itself.
func TestWallOtherEpoch(t *testing.T) {
	defer func(e time.Time) { Epoch = e }(Epoch)
	for _, e := range []time.Time{
		time.Date(2026, 1, 1, 0, 0, 0, 5, time.UTC),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("X", 3600)),
	} {
		Epoch = e
		if got, want := (90 * Second).Wall(), e.Add(90*time.Second); got != want {
			t.Errorf("Epoch %v: Wall = %#v, want %#v", e, got, want)
		}
	}
}

// TestWallClockIsWall: a run's wall clock gives Time.Wall at every step,
// including time zero, repeats, a clock that moves on, and an Epoch off UTC
// or a whole second (read when the clock is made).
func TestWallClockIsWall(t *testing.T) {
	defer func(e time.Time) { Epoch = e }(Epoch)
	steps := []Time{0, 0, 1, 1, Second, Second, Hour + 3, 7 * 24 * Hour, Time(1) << 53}
	r := rand.New(rand.NewPCG(3, 4))
	for range 10_000 {
		steps = append(steps, Time(r.Int64N(int64(100*365*24*Hour))))
	}
	for _, e := range []time.Time{Epoch, time.Date(2026, 1, 1, 0, 0, 0, 5, time.UTC), time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("X", 3600))} {
		Epoch = e
		c := newWallClock()
		for _, now := range steps {
			if got, want := c.of(now), now.Wall(); got != want {
				t.Fatalf("Epoch %v, at %d: wall clock %v, want %v", e, now, got, want)
			}
		}
	}
}

// TestFromDurationIsRound: FromDuration gives d.Round(µs)/µs, the
// rounding it stands for, on edge values (halfway either side of zero,
// either side of its fast path's bound, the int64 bounds where Round
// saturates) and a million random durations of every magnitude.
func TestFromDurationIsRound(t *testing.T) {
	ds := []time.Duration{0, 1, 499, 500, 501, 999, 1000, 1499, 1500, -1, -499, -500, -501, -1500,
		1<<62 - 1, 1 << 62, 1<<62 + 500, -1 << 62, 1<<63 - 1, 1<<63 - 500, 1<<63 - 501, -1 << 63, -1<<63 + 500}
	r := rand.New(rand.NewPCG(5, 6))
	for range 1_000_000 {
		ds = append(ds, time.Duration(int64(r.Uint64())>>r.IntN(64)), time.Duration(r.Int64N(int64(time.Hour))))
	}
	for _, d := range ds {
		if got, want := FromDuration(d), Time(d.Round(time.Microsecond)/time.Microsecond); got != want {
			t.Fatalf("FromDuration(%d) = %d, want %d", d, got, want)
		}
	}
}
