package sim

import (
	"math/big"
	"testing"
	"time"

	"github.com/evalsched/lab/scenario"
)

// TestMetersFromTheLog runs a quota-bound organisation under each new
// metering rule and checks from the event log alone — what each accept
// and answer counted, replayed through exact brute-force meters — that no
// quota ever held more than its limit: a token bucket held every accepted
// cost when it was taken (levels in rationals, refilled per microsecond),
// and no rolling minute held more than the limit. It also checks the
// prompt cache from the log: a call read the cache only when its job's
// previous accepted call was within the lifetime, and never more than that
// call's input.
func TestMetersFromTheLog(t *testing.T) {
	on := true
	cases := []struct {
		name   string
		meter  scenario.MeterKind
		input  scenario.InputCount
		output scenario.OutputCount
		otpm   int64 // 0: 600,000
	}{
		{"bucket-reconciled", scenario.MeterTokenBucket, scenario.InputUncached, scenario.OutputReconciled, 300_000},
		{"bucket-at-end", scenario.MeterTokenBucket, scenario.InputAll, scenario.OutputAtEnd, 0},
		{"window-max-tokens", scenario.MeterRolling, scenario.InputUncached, scenario.OutputMaxTokens, 0},
		{"window-at-end", scenario.MeterRolling, scenario.InputAll, scenario.OutputAtEnd, 0},
		// Output counted as produced binds far later: a smaller OTPM.
		{"bucket-as-produced", scenario.MeterTokenBucket, scenario.InputUncached, scenario.OutputProduced, 100_000},
	}
	const life = 2 * time.Minute
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			limits := map[int]int64{scenario.DimRPM: 2500, scenario.DimITPM: 4_000_000, scenario.DimOTPM: 600_000, scenario.DimTPM: 6_000_000}
			if tc.otpm > 0 {
				limits[scenario.DimOTPM] = tc.otpm
			}
			sc := smallScenario(t, func(sc *scenario.Scenario) {
				o := &sc.Organisations[1] // anthropic: five hot lanes
				o.RPM, o.TPM, o.ITPM, o.OTPM = float64(limits[scenario.DimRPM]), float64(limits[scenario.DimTPM]), float64(limits[scenario.DimITPM]), float64(limits[scenario.DimOTPM])
				o.MeterAll, o.Input, o.Output = tc.meter, tc.input, tc.output
				o.Cache = &scenario.CacheConfig{Enabled: &on, Lifetime: life, WriteFactor: ptr(1.25), ReadFactor: ptr(0.1)}
				for name, b := range sc.Workload.Behaviours {
					b.MaxTokens = 6000
					sc.Workload.Behaviours[name] = b
				}
			})
			org := int32(1)
			w := runLogged(t, sc, "scheduler", 4)
			dims := []int{scenario.DimRPM, scenario.DimITPM, scenario.DimOTPM, scenario.DimTPM}
			amount := func(d int, in, out int32, request bool) int64 {
				switch scenario.DimCount(d) {
				case scenario.CountsRequests:
					if request {
						return 1
					}
					return 0
				case scenario.CountsInput:
					return int64(in)
				case scenario.CountsOutput:
					return int64(out)
				}
				return int64(in) + int64(out)
			}
			// Bucket replay: level per dimension at lastT.
			level := map[int]*big.Rat{}
			for _, d := range dims {
				level[d] = big.NewRat(limits[d], 1)
			}
			lastT := Time(-24 * Hour)
			refill := func(now Time) {
				for _, d := range dims {
					l := level[d].Add(level[d], big.NewRat(limits[d]*int64(now-lastT), int64(Minute)))
					if l.Cmp(big.NewRat(limits[d], 1)) > 0 {
						l.SetInt64(limits[d])
					}
				}
				lastT = now
			}
			type entry struct {
				t   Time
				amt [4]int64 // per dims index
			}
			var entries []entry
			jobs := map[int64]*cacheModel{}
			born := map[int64]Time{}
			accepts, rejects, reads := 0, 0, 0
			for _, r := range w.Log() {
				if r.Org != org {
					continue
				}
				switch r.Event {
				case LogCallCreate:
					born[r.Call] = r.T
				case LogCacheReady:
					jobs[int64(r.Job)].pending[r.Call].ready = r.Ready
				case LogCall429:
					rejects++
				case LogCallAccept, LogCallAnswer:
					if r.Event == LogCallAnswer && r.CountOut == 0 {
						continue
					}
					request := r.Event == LogCallAccept
					var e entry
					e.t = r.T
					for i, d := range dims {
						e.amt[i] = amount(d, r.CountIn, r.CountOut, request)
					}
					if tc.meter == scenario.MeterTokenBucket {
						refill(r.T)
						for i, d := range dims {
							a := big.NewRat(e.amt[i], 1)
							if request && level[d].Cmp(a) < 0 {
								t.Fatalf("%v: %s bucket holds %s, the accept took %d", r.T.Duration(), scenario.DimNames[d], level[d].FloatString(3), e.amt[i])
							}
							level[d].Sub(level[d], a)
							if l := level[d]; l.Cmp(big.NewRat(limits[d], 1)) > 0 {
								l.SetInt64(limits[d])
							}
						}
					} else {
						// Admission is checked at accepts; output counted when
						// a call ends may take a window past its limit then.
						entries = append(entries, e)
						var sum [4]int64
						for _, x := range entries {
							if x.t+Minute > r.T {
								for i := range sum {
									sum[i] += x.amt[i]
								}
							}
						}
						for i, d := range dims {
							if request && sum[i] > limits[d] {
								t.Fatalf("%v: %s holds %d in the minute, limit %d", r.T.Duration(), scenario.DimNames[d], sum[i], limits[d])
							}
						}
						for len(entries) > 0 && entries[0].t+Minute <= r.T {
							entries = entries[1:]
						}
					}
					if r.Event != LogCallAccept || r.Job < 0 {
						continue
					}
					accepts++
					j := jobs[int64(r.Job)]
					if j == nil {
						j = newCacheModel()
						jobs[int64(r.Job)] = j
					}
					in := r.CountIn
					if tc.input == scenario.InputUncached {
						in += r.CacheRead
					}
					want, _ := j.want(r.T, born[r.Call], in, FromDuration(life))
					if r.CacheRead != want {
						t.Fatalf("%v: job %d call %d read %d cached tokens; the model reads %d (prefix %d, last used %v)", r.T.Duration(), r.Job, r.Call, r.CacheRead, want, j.prefix, j.use.Duration())
					}
					if r.CacheRead > 0 {
						reads++
					}
					j.accepted(r.T, r.Call, in, r.CacheRead)
				}
			}
			if accepts < 1000 || rejects == 0 || reads == 0 {
				t.Fatalf("%d accepts, %d 429s, %d cache reads: the test does not bind the quotas or use the cache", accepts, rejects, reads)
			}
			t.Logf("%d accepts, %d 429s, %d cache reads", accepts, rejects, reads)
		})
	}
}
