package sim

// The week under a provider's meter against today's, per policy, side by
// side in one run:
//
//	go test -bench WeekMeters -run '^$' -benchtime=3x ./sim/
//
// BenchmarkWeekMeters/POLICY/today runs studio-week cut to weekMeterHours
// (the first hours of Monday) on its own quotas: rolling windows over input
// plus the real output. /POLICY/preset runs the same cut with both quota
// organisations on a preset's rules and the same limits: anthropic's as
// the anthropic preset meters (token buckets for RPM, ITPM and OTPM, the
// old TPM becoming the ITPM and a quarter of it the OTPM, cache reads not
// counted, output at max_tokens given back at the end), openai's as the
// openai preset does (rolling windows, input + max_tokens at admission),
// both with the prompt cache, every call asking for max_tokens 8000, and
// the hot models priced. The preset line reports x-today = its ns/op ÷
// today's from the same invocation (the target is <= ~1.15), and both
// report allocations.

import (
	"testing"
	"time"

	"github.com/evalsched/lab/scenario"
)

const weekMeterHours = 3

func weekCut(tb testing.TB, preset bool) *scenario.Scenario {
	tb.Helper()
	sc, err := scenario.LoadScenario("embedded:studio-week")
	if err != nil {
		tb.Fatal(err)
	}
	sc.Duration = weekMeterHours * time.Hour
	sc.Warmup = 30 * time.Minute
	if !preset {
		return sc
	}
	on := true
	for i := range sc.Organisations {
		o := &sc.Organisations[i]
		switch o.Name {
		case "anthropic":
			o.ITPM, o.OTPM, o.TPM = o.TPM, o.TPM/4, 0
			o.MeterAll, o.Input, o.Output = scenario.MeterTokenBucket, scenario.InputUncached, scenario.OutputReconciled
			o.Cache = &scenario.CacheConfig{Enabled: &on, Lifetime: 5 * time.Minute, WriteFactor: 1.25, ReadFactor: 0.1}
		case "openai":
			o.MeterAll, o.Input, o.Output = scenario.MeterRolling, scenario.InputAll, scenario.OutputMaxTokens
			o.Cache = &scenario.CacheConfig{Enabled: &on, Lifetime: 5 * time.Minute, WriteFactor: 1, ReadFactor: 0.1}
		}
	}
	for name, b := range sc.Workload.Behaviours {
		b.MaxTokens = 8000
		sc.Workload.Behaviours[name] = b
	}
	cfgs := sc.ModelConfigs()
	for i := range cfgs {
		if cfgs[i].Org == "anthropic" || cfgs[i].Org == "openai" {
			cfgs[i].Prices = scenario.Prices{Input: 3, Output: 15}
		}
	}
	return sc
}

func BenchmarkWeekMeters(b *testing.B) {
	for _, policy := range []string{"fixed-lane", "scheduler"} {
		b.Run(policy, func(b *testing.B) {
			var todayNs float64
			for _, preset := range []bool{false, true} {
				name := "today"
				if preset {
					name = "preset"
				}
				b.Run(name, func(b *testing.B) {
					sc := weekCut(b, preset)
					b.ReportAllocs()
					b.ResetTimer()
					var events uint64
					for range b.N {
						w, err := Execute(sc, RunSpec{Policy: policy, Seed: 1})
						if err != nil {
							b.Fatal(err)
						}
						events += w.EventsProcessed()
					}
					ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
					b.ReportMetric(float64(events)/float64(b.N), "events/op")
					if !preset {
						todayNs = ns
					} else if todayNs > 0 {
						b.ReportMetric(ns/todayNs, "x-today")
					}
				})
			}
		})
	}
}
