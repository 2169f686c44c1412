package sim

import (
	"math"
	"testing"
	"time"
	"unsafe"

	"github.com/evalsched/lab/scenario"
)

// TestHistoryAgesOutMinuteByMinute: usage declared for the day before the
// run (organisations[].history) is counted in the daily windows as whole
// requests and tokens per minute, each minute within one of its exact share
// of the hourly weights, the day summing to the declared totals; and each
// minute frees exactly 24 h after it, not in between. The minutes' amounts
// are read back from the pool as the drop in its count when each ages out,
// and checked against shares recomputed here from the weights.
func TestHistoryAgesOutMinuteByMinute(t *testing.T) {
	hourly := make([]float64, 24)
	for h := range hourly {
		hourly[h] = 0.3 + 0.1*float64(h%7) // uneven, so a shifted hour shows
	}
	const clock = 2*time.Hour + 14*time.Minute // virtual time 0 is 02:14
	hist := &scenario.QuotaHistory{Requests: 7201, Tokens: 8_640_123, Hourly: hourly}
	limits := [scenario.NumDims]float64{scenario.DimRPD: 1e7, scenario.DimTPD: 1e10}
	p := newQuotaPool(poolSpec{limits: limits, clock: clock, models: 1})
	p.seedHistory(hist, clock)

	// share[m] is the weight of minute m of the 1,440 before time 0.
	var share [1440]float64
	total := 0.0
	for m := range share {
		tod := (clock - time.Duration(1440-m)*time.Minute + 24*time.Hour) % (24 * time.Hour)
		share[m] = hourly[int(tod/time.Hour)]
		total += share[m]
	}
	count := func(at Time) (req, tok float64) { // the windows' raw sums, as they hold them
		var got [scenario.NumDims]float64
		for i := range p.windows {
			q := &p.windows[i]
			sum, bySrc := q.live(at)
			if sum != bySrc[srcHistory] {
				t.Fatalf("at %v: %s holds %v, %v of it history", at.Duration(), scenario.DimNames[q.dim], sum, bySrc[srcHistory])
			}
			got[q.dim] = sum
		}
		return got[scenario.DimRPD], got[scenario.DimTPD]
	}
	// Minute m was counted at −(1440−m) min: it frees at m min (minute 0
	// at time 0 itself), and at no other moment. Before it, the declared
	// totals were held.
	prevR, prevK := hist.Requests, hist.Tokens
	for m := range share {
		nowR, nowK := count(Time(m) * Minute)
		for _, c := range []struct {
			name        string
			freed, want float64
		}{{"requests", prevR - nowR, hist.Requests * share[m] / total}, {"tokens", prevK - nowK, hist.Tokens * share[m] / total}} {
			if c.freed != math.Trunc(c.freed) || math.Abs(c.freed-c.want) >= 1 {
				t.Errorf("minute %d freed %v %s, its share is %.3f: want a whole number within 1", m, c.freed, c.name, c.want)
			}
		}
		if midR, midK := count(Time(m)*Minute + 30*Second); midR != nowR || midK != nowK {
			t.Fatalf("between minutes %d and %d the count moved", m, m+1)
		}
		prevR, prevK = nowR, nowK
	}
	if prevR != 0 || prevK != 0 {
		t.Errorf("a day later %v requests and %v tokens still held", prevR, prevK)
	}
}

// TestQuotaEntryIsSixteenBytes: a rolling daily log keeps every try of the
// last 24 hours (tens of millions on a busy week), so its entry stays at 16
// bytes.
func TestQuotaEntryIsSixteenBytes(t *testing.T) {
	if n := unsafe.Sizeof(quotaEntry{}); n != 16 {
		t.Errorf("quotaEntry is %d bytes, want 16", n)
	}
}

// TestQuotaEntryRefusesWhatItCannotHold: a try's tokens must be a whole
// uint32 and its model an int16; anything else is a broken invariant.
func TestQuotaEntryRefusesWhatItCannotHold(t *testing.T) {
	for _, c := range []struct {
		name   string
		tokens float64
		model  int32
		panics bool
	}{
		{"whole tokens", 4_294_967_294, scenario.MaxModels - 1, false},
		{"no model", 17, -1, false},
		{"fractional tokens", 1.5, 0, true},
		{"too many tokens", 1 << 32, 0, true},
		{"negative tokens", -1, 0, true},
		{"model past int16", 12, 1 << 15, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			panicked := func() (p bool) {
				defer func() { p = recover() != nil }()
				e := newTry(0, c.tokens, srcEval, c.model, entryTry)
				if float64(e.amt) != c.tokens || int32(e.model) != c.model {
					t.Errorf("entry holds %d tokens on model %d, want %v on %d", e.amt, e.model, c.tokens, c.model)
				}
				return false
			}()
			if panicked != c.panics {
				t.Errorf("panicked = %v, want %v", panicked, c.panics)
			}
		})
	}
}
