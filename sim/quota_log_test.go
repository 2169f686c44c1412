package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/evalsched/lab/scenario"
)

// TestSharedLogMatchesSeparateWindows: the windows of one span share one
// log of entries (quotaLog); each must still answer exactly as a window
// with entries of its own. A pool with all four dimensions and retry burn
// is driven with random tries of two sources and three models over two
// virtual days (so daily entries age out), and every decision, retry-after
// and reading (each dimension's use, by source and by model) is checked
// against brute-force windows that each keep their own tries: accepted
// tries count 1 request and their tokens, rejected ones 1 request (burn).
// Both admission rules: a try must fit whole, or is let in while the count
// is below the limit. The retry-after under burn (found by wait's cursor,
// not a scan) is checked on every refused try.
func TestSharedLogMatchesSeparateWindows(t *testing.T) {
	for _, under := range []bool{false, true} {
		name := "fit"
		if under {
			name = "under_limit"
		}
		t.Run(name, func(t *testing.T) { checkSharedLog(t, under) })
	}
}

func checkSharedLog(t *testing.T, under bool) {
	limits := [scenario.NumDims]float64{scenario.DimRPM: 40, scenario.DimTPM: 2000, scenario.DimRPD: 3000, scenario.DimTPD: 150_000}
	spans := [scenario.NumDims]Time{Minute, Minute, 24 * Hour, 24 * Hour}
	const models = 3
	p := newQuotaPool(poolSpec{limits: limits, countRejected: true, models: models, underLimit: under})
	lets := func(count, amt, limit float64) bool { // the admission rule, read on a count
		if under {
			return count < limit
		}
		return count+amt <= limit
	}
	if len(p.logs) != 2 {
		t.Fatalf("%d logs for two spans", len(p.logs))
	}
	type entry struct { // a try as the brute force keeps it, not the log's layout
		t      Time
		src    source
		model  int32
		tokens float64
		burn   bool
	}
	var tries []entry
	// brute is dimension d's count at now, of source src (all: -1) and
	// model (all: -1).
	brute := func(d int, now Time, src source, model int32) float64 {
		s := 0.0
		for i := len(tries) - 1; i >= 0; i-- { // newest first: tries are in time order
			e := tries[i]
			if e.t+spans[d] <= now {
				break
			}
			if (src != numSources && e.src != src) || (model >= 0 && e.model != model) {
				continue
			}
			switch {
			case d == scenario.DimRPM || d == scenario.DimRPD:
				s++
			case !e.burn:
				s += e.tokens
			}
		}
		return s
	}
	bruteWait := func(now Time, tokens float64) Time {
		var out Time
		for d := range scenario.NumDims {
			if limits[d] == 0 {
				continue
			}
			amt := 1.0
			if d == scenario.DimTPM || d == scenario.DimTPD {
				amt = tokens
			}
			if amt > limits[d] && !under {
				return -1
			}
			if lets(brute(d, now, numSources, -1), amt, limits[d]) {
				continue
			}
			// The count can only fall when an entry ages out: at each such
			// instant it is the sum of the entries counted after that one.
			first := sort.Search(len(tries), func(i int) bool { return tries[i].t+spans[d] > now })
			live := tries[first:]
			after := make([]float64, len(live)+1) // after[k]: the count of live[k:]
			for k := len(live) - 1; k >= 0; k-- {
				after[k] = after[k+1]
				switch {
				case d == scenario.DimRPM || d == scenario.DimRPD:
					after[k]++
				case !live[k].burn:
					after[k] += live[k].tokens
				}
			}
			w := spans[d]
			for k, e := range live {
				next := k + 1
				for next < len(live) && live[next].t == e.t { // tries at one instant age out together
					next++
				}
				if lets(after[next], amt, limits[d]) {
					w = e.t + spans[d] - now
					break
				}
			}
			out = max(out, w)
		}
		return out
	}
	rng := rand.New(rand.NewPCG(3, 11))
	now := Time(0)
	accepted, rejected, held := 0, 0, 0
	for i := 0; i < 6500; i++ {
		for _, l := range p.logs {
			held = max(held, l.len())
			checkDue(t, l)
		}
		now += Time(rng.IntN(int(3 * Second)))
		if i > 4600 && rng.IntN(100) == 0 { // a dense day first (more than a page), then jumps
			now += Time(rng.IntN(int(6 * Hour)))
		}
		tokens := float64(1 + rng.IntN(120))
		src, model := srcEval, int32(rng.IntN(models))
		if rng.IntN(3) == 0 {
			src, model = srcProd, -1
		}
		for d := range scenario.NumDims {
			if limits[d] == 0 {
				continue
			}
			all, by := p.dimUse(now, srcEval)
			if got, want := all[d]*limits[d], brute(d, now, numSources, -1); math.Abs(got-want) > 1e-6 {
				t.Fatalf("try %d at %v: %s use %g, brute force %g", i, now.Duration(), scenario.DimNames[d], got, want)
			}
			if got, want := by[d]*limits[d], brute(d, now, srcEval, -1); math.Abs(got-want) > 1e-6 {
				t.Fatalf("try %d at %v: %s use by evaluations %g, brute force %g", i, now.Duration(), scenario.DimNames[d], got, want)
			}
			for m := range int32(models) {
				if got, want := p.modelUse(now, m)[d]*limits[d], brute(d, now, numSources, m); math.Abs(got-want) > 1e-6 {
					t.Fatalf("try %d at %v: %s use of model %d %g, brute force %g", i, now.Duration(), scenario.DimNames[d], m, got, want)
				}
			}
		}
		want := bruteWait(now, tokens)
		got, ok := p.admit(now, tokens, src, model)
		if ok {
			got = 0
		}
		if got != want {
			t.Fatalf("try %d (%g tokens at %v): retry-after %v, brute force %v", i, tokens, now.Duration(), got.Duration(), want.Duration())
		}
		if ok {
			accepted++
			tries = append(tries, entry{t: now, src: src, model: model, tokens: tokens})
		} else if p.burn(now, src, model) {
			rejected++
			tries = append(tries, entry{t: now, src: src, model: model, burn: true})
		}
	}
	if accepted < 1000 || rejected < 1000 {
		t.Errorf("%d tries accepted and %d rejected: the test needs many of both", accepted, rejected)
	}
	if held <= logPage {
		t.Errorf("a log held at most %d entries: the test needs more than a page (%d)", held, logPage)
	}
	// The log keeps only what a window has not yet expired: after a day
	// with nothing new, both logs are empty.
	now += 25 * Hour
	p.use(now)
	for i, l := range p.logs {
		if n := l.len(); n != 0 || len(l.pages) > 1 {
			t.Errorf("log %d holds %d entries in %d pages a day after the last try", i, n, len(l.pages))
		}
	}
	// Whole amounts: the emptied windows' sums are exactly zero, with no
	// reset (no float drift to clear).
	for i := range p.windows {
		q := &p.windows[i]
		if q.sum != 0 || q.bySrc != [numSources]float64{} || slices.ContainsFunc(q.byModel, func(v float64) bool { return v != 0 }) {
			t.Errorf("%s emptied holds sum %v, by source %v, by model %v", scenario.DimNames[q.dim], q.sum, q.bySrc, q.byModel)
		}
	}
	// So are the tallies the logs keep for their rolling windows.
	for i, l := range p.logs {
		if l.bySrc != [numSources]quotaTally{} || slices.ContainsFunc(l.byModel, func(v quotaTally) bool { return v != quotaTally{} }) {
			t.Errorf("log %d emptied tallies %v by source, %v by model", i, l.bySrc, l.byModel)
		}
	}
}

// checkDue: a log without fixed windows is due (quotaLog.due, the moment
// expire has work) exactly when the oldest entry its windows hold frees,
// never with none held; one with a fixed window is always due.
func checkDue(t *testing.T, l *quotaLog) {
	t.Helper()
	want := noneDue
	switch next := l.rolling[0].next; {
	case len(l.resets) > 0:
		want = math.MinInt64
	case next < l.end():
		want = l.at(next).t + l.span
	}
	if l.due != want {
		t.Fatalf("log of span %v due at %v, its oldest held entry frees at %v", l.span.Duration(), l.due, want)
	}
}
