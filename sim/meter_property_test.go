package sim

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/evalsched/lab/scenario"
)

// modelMeter is the brute-force model of one quota: it keeps every amount
// it admitted and computes from scratch, in exact rationals, what the
// quota holds at a time.
type modelMeter struct {
	kind       scenario.MeterKind
	limit      int64 // a window's limit; a bucket's refill per span
	cap        int64 // a bucket's capacity
	span       Time
	firstReset Time // fixed: the first reset instant (> 0)
	entries    []modelEntry
	// bucket: the level at lastT, replayed event by event.
	level *big.Rat
	lastT Time
}

type modelEntry struct {
	t   Time
	amt int64
}

func newModelMeter(kind scenario.MeterKind, limit, capacity int64, span, firstReset Time) *modelMeter {
	return &modelMeter{kind: kind, limit: limit, cap: capacity, span: span, firstReset: firstReset, level: big.NewRat(capacity, 1)}
}

// levelAt is the bucket's level at t >= lastT: the level at lastT plus
// limit/span per microsecond since, capped at the capacity.
func (m *modelMeter) levelAt(t Time) *big.Rat {
	l := new(big.Rat).Add(m.level, big.NewRat(m.limit*int64(t-m.lastT), int64(m.span)))
	if l.Cmp(big.NewRat(m.cap, 1)) > 0 {
		l.SetInt64(m.cap)
	}
	return l
}

// sumAt is what a window holds at t: every entry of the last span
// (rolling), or since the last reset instant (fixed).
func (m *modelMeter) sumAt(t Time) int64 {
	var from Time
	switch m.kind {
	case scenario.MeterRolling:
		from = t - m.span + 1 // live while e.t + span > t
	case scenario.MeterFixed:
		from = -1 << 62
		for r := m.firstReset; r <= t; r += m.span {
			from = r
		}
	}
	var s int64
	for _, e := range m.entries {
		if e.t >= from {
			s += e.amt
		}
	}
	return s
}

// admits says whether the model lets amt in at t.
func (m *modelMeter) admits(t Time, amt int64) bool {
	if m.kind == scenario.MeterTokenBucket {
		return m.levelAt(t).Cmp(big.NewRat(amt, 1)) >= 0
	}
	return m.sumAt(t)+amt <= m.limit
}

// count records amt taken at t.
func (m *modelMeter) count(t Time, amt int64) {
	if m.kind == scenario.MeterTokenBucket {
		m.level = m.levelAt(t).Sub(m.levelAt(t), big.NewRat(amt, 1))
		m.lastT = t
		return
	}
	m.entries = append(m.entries, modelEntry{t, amt})
}

// give returns amt to a bucket at t, up to its limit.
func (m *modelMeter) give(t Time, amt int64) {
	l := m.levelAt(t)
	l.Add(l, big.NewRat(amt, 1))
	if l.Cmp(big.NewRat(m.cap, 1)) > 0 {
		l.SetInt64(m.cap)
	}
	m.level, m.lastT = l, t
}

// TestMetersAgainstBruteForce runs random sequences of tries through a
// pool of four quotas (RPM, ITPM, OTPM and TPM, input and output metered
// apart) of one meter kind and through the brute-force model of each:
// the pool admits exactly the tries every model admits, and a refused
// try's retry-after is the first microsecond at which the models would
// admit it (not one earlier). Token buckets also get output given back at
// random (max_tokens reconciled to the real output). With a burst, RPM is
// enforced over a shorter interval: the model is a window of that span
// holding limit × burst / minute (whole, at least 1), or a bucket of that
// capacity refilled at the limit per minute.
func TestMetersAgainstBruteForce(t *testing.T) {
	for _, kind := range []scenario.MeterKind{scenario.MeterRolling, scenario.MeterFixed, scenario.MeterTokenBucket} {
		for _, burst := range []Time{0, Second, 10 * Second} {
			for seed := uint64(1); seed <= 40; seed++ {
				t.Run(fmt.Sprintf("%s/burst%v/%d", kind, burst.Duration(), seed), func(t *testing.T) { meterProperty(t, kind, burst, seed) })
			}
		}
	}
}

func meterProperty(t *testing.T, kind scenario.MeterKind, burst Time, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 0x6d65746572))
	dims := []int{scenario.DimRPM, scenario.DimITPM, scenario.DimOTPM, scenario.DimTPM}
	spec := poolSpec{models: 1, split: true}
	// Small limits so that every quota binds: a few requests, a few
	// thousand tokens a minute; odd ones, so refills are fractional.
	limits := map[int]int64{scenario.DimRPM: 3 + rng.Int64N(20), scenario.DimITPM: 1000 + rng.Int64N(9000),
		scenario.DimOTPM: 300 + rng.Int64N(3000), scenario.DimTPM: 1500 + rng.Int64N(12000)}
	clock := Time(rng.Int64N(int64(24 * Hour)))
	spec.clock = clock.Duration()
	models := map[int]*modelMeter{}
	for _, d := range dims {
		spec.limits[d] = float64(limits[d])
		spec.meters[d] = kind
		models[d] = newModelMeter(kind, limits[d], limits[d], Minute, nextReset(clock, 0, Minute))
	}
	if burst > 0 {
		d := scenario.DimRPM
		spec.burst[d] = burst.Duration()
		share := max(1, limits[d]*int64(burst)/int64(Minute)) // whole, computed in integers
		if kind == scenario.MeterTokenBucket {
			models[d] = newModelMeter(kind, limits[d], share, Minute, 0)
		} else {
			models[d] = newModelMeter(kind, share, share, burst, nextReset(clock, 0, burst))
		}
		limits[d] = share // the largest try it can ever hold
	}
	p := newQuotaPool(spec)
	amount := func(d int, c tryCost) int64 {
		switch scenario.DimCount(d) {
		case scenario.CountsInput:
			return int64(c.in)
		case scenario.CountsOutput:
			return int64(c.out)
		case scenario.CountsTokens:
			return int64(c.in + c.out)
		}
		return 1
	}
	modelAdmits := func(at Time, c tryCost) bool {
		for _, d := range dims {
			if !models[d].admits(at, amount(d, c)) {
				return false
			}
		}
		return true
	}
	now := Time(0)
	admitted, refused := 0, 0
	for step := 0; step < 400; step++ {
		// Mostly bursts (gaps of microseconds to seconds), sometimes a lull
		// past a whole span.
		switch r := rng.IntN(10); {
		case r < 4:
			now += Time(rng.Int64N(1000))
		case r < 9:
			now += Time(rng.Int64N(int64(5 * Second)))
		default:
			now += Time(rng.Int64N(int64(2 * Minute)))
		}
		c := tryCost{in: float64(rng.Int64N(limits[scenario.DimITPM] / 3)), out: float64(1 + rng.Int64N(limits[scenario.DimOTPM]/3))}
		if rng.IntN(30) == 0 { // now and then a try no quota can ever hold
			c.out = float64(limits[scenario.DimOTPM] + 1)
		}
		want := modelAdmits(now, c)
		wait, ok := p.admitCost(now, c, srcEval, 0)
		if ok != want {
			t.Fatalf("step %d at %v: try %+v: pool admits %v, the model %v", step, now, c, ok, want)
		}
		if ok {
			admitted++
			for _, d := range dims {
				models[d].count(now, amount(d, c))
			}
			if kind == scenario.MeterTokenBucket && rng.IntN(3) == 0 {
				back := float64(rng.Int64N(int64(c.out) + 1))
				at := now + Time(rng.Int64N(int64(Second)))
				p.giveBack(at, back)
				for _, d := range dims {
					if k := scenario.DimCount(d); k == scenario.CountsOutput || k == scenario.CountsTokens {
						models[d].give(at, int64(back))
					}
				}
				now = at
			}
			continue
		}
		refused++
		never := false
		for _, d := range dims {
			never = never || amount(d, c) > limits[d]
		}
		if never != (wait < 0) {
			t.Fatalf("step %d: try %+v larger than a quota: %v, retry-after %v", step, c, never, wait)
		}
		if wait < 0 {
			continue
		}
		if !modelAdmits(now+wait, c) {
			t.Fatalf("step %d at %v: try %+v: the model refuses it at the retry-after %v", step, now, c, wait)
		}
		if wait > 1 && modelAdmits(now+wait-1, c) {
			t.Fatalf("step %d at %v: try %+v: the model admits it a microsecond before the retry-after %v", step, now, c, wait)
		}
	}
	if admitted < 20 || refused < 20 {
		t.Fatalf("a weak sequence: %d admitted, %d refused", admitted, refused)
	}
}
