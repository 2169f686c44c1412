package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/evalsched/lab/scenario"
)

// TestTalliedReadingsAgainstBruteForce: a rolling window's readings by
// source and by model come from its log's tallies (kept once for all its
// rolling windows, and brought up to date when read), a fixed window's
// from its own sums. A split pool with every dimension, its minute windows
// rolling, fixed and metered by a token bucket side by side in one log
// (and its daily ones rolling and fixed in another), retry burn and output
// counted as calls end, and a plain pool of four rolling windows (its own
// admission path), are driven with random tries of two sources and three
// models; after every step, or after one step in 40 (so that entries age
// out before a reading has tallied them), each window's readings (its sum,
// by source and by model) must equal a brute force's over every entry
// counted so far: a rolling window (or bucket) holds what was counted in
// the last span, a fixed one what was counted since its last reset
// instant (every span from virtual time 0).
func TestTalliedReadingsAgainstBruteForce(t *testing.T) {
	var limits [scenario.NumDims]float64
	limits[scenario.DimRPM], limits[scenario.DimTPM] = 200, 300_000
	limits[scenario.DimITPM], limits[scenario.DimOTPM] = 250_000, 30_000
	limits[scenario.DimRPD], limits[scenario.DimTPD] = 30_000, 20_000_000
	var meters [scenario.NumDims]scenario.MeterKind
	meters[scenario.DimRPM], meters[scenario.DimTPM] = scenario.MeterRolling, scenario.MeterFixed
	meters[scenario.DimITPM], meters[scenario.DimOTPM] = scenario.MeterTokenBucket, scenario.MeterRolling
	meters[scenario.DimRPD], meters[scenario.DimTPD] = scenario.MeterRolling, scenario.MeterFixed
	const models = 3
	var plainLimits [scenario.NumDims]float64
	plainLimits[scenario.DimRPM], plainLimits[scenario.DimTPM] = 200, 300_000
	plainLimits[scenario.DimRPD], plainLimits[scenario.DimTPD] = 30_000, 20_000_000
	for _, tc := range []struct {
		name    string
		spec    poolSpec
		plain   bool
		readOne int // a reading after one step in readOne
	}{
		{"mixed/every-step", poolSpec{limits: limits, countRejected: true, models: models, meters: meters, split: true}, false, 1},
		{"mixed/sparse", poolSpec{limits: limits, countRejected: true, models: models, meters: meters, split: true}, false, 40},
		{"plain/every-step", poolSpec{limits: plainLimits, countRejected: true, models: models}, true, 1},
		{"plain/sparse", poolSpec{limits: plainLimits, countRejected: true, models: models}, true, 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newQuotaPool(tc.spec)
			checkTalliedReadings(t, &p, models, tc.plain, tc.readOne)
		})
	}
}

func checkTalliedReadings(t *testing.T, p *quotaPool, models int, plain bool, readOne int) {
	if len(p.logs) != 2 || p.plain != plain {
		t.Fatalf("%d logs, plain %v: want a minute and a day log, plain %v", len(p.logs), p.plain, plain)
	}

	type counted struct { // an entry as the brute force keeps it
		t              Time
		src            source
		model          int32
		req, tok, outp float64 // requests, try tokens, output counted apart
	}
	var all []counted
	// of is what a window counting c counts of e.
	of := func(c scenario.DimCounts, e counted) float64 {
		switch c {
		case scenario.CountsRequests:
			return e.req
		case scenario.CountsTokens:
			return e.tok + e.outp
		case scenario.CountsInput:
			return e.tok
		}
		return e.outp
	}
	// brute is window q's sum at now of the entries of src (numSources:
	// all) and model (-1: all).
	brute := func(q *quotaWindow, now Time, src source, model int32) float64 {
		from := now - q.span + 1 // rolling: counted in the last span
		if q.fixed {
			from = math.MinInt64
			if now >= q.span {
				from = now / q.span * q.span // the last reset instant
			}
		}
		s := 0.0
		for i := len(all) - 1; i >= 0 && all[i].t > now-24*Hour; i-- { // newest first, a day back at most
			if e := all[i]; e.t >= from && (src == numSources || e.src == src) && (model < 0 || e.model == model) {
				s += of(q.counts, e)
			}
		}
		return s
	}
	check := func(step int, now Time) {
		t.Helper()
		for i := range p.windows {
			q := &p.windows[i]
			sum, by := q.live(now)
			if want := brute(q, now, numSources, -1); sum != want || q.liveSum(now) != want {
				t.Fatalf("step %d at %v: %s holds %v (%v alone), brute force %v", step, now.Duration(), scenario.DimNames[q.dim], sum, q.liveSum(now), want)
			}
			for s := range numSources {
				if want := brute(q, now, s, -1); by[s] != want {
					t.Fatalf("step %d at %v: %s holds %v of source %d, brute force %v", step, now.Duration(), scenario.DimNames[q.dim], by[s], s, want)
				}
			}
			for m := range int32(models) {
				if got, want := q.modelLive(now, m), brute(q, now, srcEval, m); got != want {
					t.Fatalf("step %d at %v: %s holds %v of model %d, brute force %v", step, now.Duration(), scenario.DimNames[q.dim], got, m, want)
				}
			}
		}
	}

	rng := rand.New(rand.NewPCG(5, 6))
	now := Time(0)
	var accepted, refused, outputs int
	for step := range 6000 {
		now += Time(rng.IntN(int(400 * Millisecond)))
		if rng.IntN(100) == 0 {
			now += Time(rng.IntN(int(3 * Minute))) // a minute window empties, resets pass
		}
		src, model := srcEval, int32(rng.IntN(models))
		if rng.IntN(4) == 0 {
			src, model = srcProd, -1
		}
		c := tryCost{in: float64(rng.IntN(3000)), out: float64(rng.IntN(2) * rng.IntN(800))}
		if plain { // one entry of input + output
			c = tryCost{in: c.in + c.out}
		}
		switch _, ok := p.admitCost(now, c, src, model); {
		case ok:
			accepted++
			all = append(all, counted{t: now, src: src, model: model, req: 1, tok: c.in})
			if c.out > 0 {
				all = append(all, counted{t: now, src: src, model: model, outp: c.out})
			}
		case p.burn(now, src, model):
			refused++
			all = append(all, counted{t: now, src: src, model: model, req: 1})
		}
		if !plain && rng.IntN(3) == 0 { // a call ends: its output counted now
			out := float64(1 + rng.IntN(500))
			p.countOutput(now, out, src, model)
			all = append(all, counted{t: now, src: src, model: model, outp: out})
			outputs++
		}
		for i, l := range p.logs { // what tally would add starts at the rolling windows' cursor or after it
			if l.tallied < l.rolling[0].next || l.tallied > l.tail {
				t.Fatalf("step %d: log %d tallied up to %d, its cursor at %d, its tail %d", step, i, l.tallied, l.rolling[0].next, l.tail)
			}
		}
		if rng.IntN(readOne) == 0 {
			check(step, now)
		}
	}
	t.Logf("%d tries accepted, %d refused, %d outputs", accepted, refused, outputs)
	if accepted < 1000 || refused < 500 || !plain && outputs < 1000 {
		t.Errorf("%d tries accepted, %d refused, %d outputs: the test needs many of each", accepted, refused, outputs)
	}
}

// live is the window's sum and its sums by source at now (liveOf, a source
// at a time).
func (q *quotaWindow) live(now Time) (sum float64, by [numSources]float64) {
	for s := range numSources {
		sum, by[s] = q.liveOf(now, s)
	}
	return sum, by
}
