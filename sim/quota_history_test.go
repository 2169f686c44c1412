package sim

import (
	"math"
	"testing"
	"time"
	"unsafe"
)

// TestHistoryAgesOutMinuteByMinute: usage declared for the day before the
// run (organisations[].history) counts in the daily windows as its hourly
// weights spread it over the minutes, and each minute's share frees exactly
// 24 h after that minute. The expectation is recomputed here from the
// weights, minute by minute, not read from the pool; requests and tokens
// share one log, so a history entry read back with the other's amount
// (they are kept beside the log, not in the 16-byte entries) fails it.
func TestHistoryAgesOutMinuteByMinute(t *testing.T) {
	hourly := make([]float64, 24)
	for h := range hourly {
		hourly[h] = 0.3 + 0.1*float64(h%7) // uneven, so a shifted hour shows
	}
	const clock = 2*time.Hour + 14*time.Minute // virtual time 0 is 02:14
	hist := &QuotaHistory{Requests: 7200, Tokens: 8_640_123.5, Hourly: hourly}
	limits := [numDims]float64{dimRPD: 1e7, dimTPD: 1e10}
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
	for _, at := range []Time{0, Minute, 46 * Minute, 5*Hour + 30*Second, 23*Hour + 59*Minute, 24 * Hour} {
		// Minute m was counted at −(1440−m) min and frees 24 h later.
		var wantReq, wantTok float64
		for m := range share {
			if -Time(1440-m)*Minute+24*Hour > at {
				wantReq += hist.Requests * share[m] / total
				wantTok += hist.Tokens * share[m] / total
			}
		}
		all, by := p.dimUse(at, srcHistory)
		for _, c := range []struct {
			dim             int
			want, got       float64
			gotBySrc, total float64
		}{
			{dimRPD, wantReq, all[dimRPD] * limits[dimRPD], by[dimRPD] * limits[dimRPD], hist.Requests},
			{dimTPD, wantTok, all[dimTPD] * limits[dimTPD], by[dimTPD] * limits[dimTPD], hist.Tokens},
		} {
			// Summed in another order than the pool's: equal to rounding,
			// which over 1,440 terms is far below 1e-9 of the day.
			if tol := 1e-9 * c.total; math.Abs(c.got-c.want) > tol || math.Abs(c.gotBySrc-c.want) > tol {
				t.Errorf("at %v: %s holds %.6f (history %.6f), recomputed %.6f", at.Duration(), DimNames[c.dim], c.got, c.gotBySrc, c.want)
			}
		}
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
		{"whole tokens", 4_294_967_294, MaxModels - 1, false},
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
