package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/evalsched/lab/scenario"
)

// TestTalliedReadingsAgainstBruteForce: a rolling window's readings by
// source and by model come from its log's tallies (kept once for all its
// rolling windows), a fixed window's from its own sums. A split pool with
// every dimension, its minute windows rolling, fixed and metered by a
// token bucket side by side in one log (and its daily ones rolling and
// fixed in another), retry burn and output counted as calls end, is driven
// with random tries of two sources and three models; after every step each
// window's readings (its sum, by source and by model) must equal a brute
// force's over every entry counted so far: a rolling window (or bucket)
// holds what was counted in the last span, a fixed one what was counted
// since its last reset instant (every span from virtual time 0).
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
	p := newQuotaPool(poolSpec{limits: limits, countRejected: true, models: models, meters: meters, split: true})
	if len(p.logs) != 2 || p.plain {
		t.Fatalf("%d logs, plain %v: want a minute and a day log, not plain", len(p.logs), p.plain)
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
			if want := brute(q, now, numSources, -1); sum != want {
				t.Fatalf("step %d at %v: %s holds %v, brute force %v", step, now.Duration(), scenario.DimNames[q.dim], sum, want)
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
		if rng.IntN(3) == 0 { // a call ends: its output counted now
			out := float64(1 + rng.IntN(500))
			p.countOutput(now, out, src, model)
			all = append(all, counted{t: now, src: src, model: model, outp: out})
			outputs++
		}
		check(step, now)
	}
	t.Logf("%d tries accepted, %d refused, %d outputs", accepted, refused, outputs)
	if accepted < 1000 || refused < 500 || outputs < 1000 {
		t.Errorf("%d tries accepted, %d refused, %d outputs: the test needs many of each", accepted, refused, outputs)
	}
}
