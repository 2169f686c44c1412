package sim

// The week under a provider's meter against today's, per policy, side by
// side in one run:
//
//	go test -bench WeekMeters -run '^$' -benchtime=3x ./sim/
//
// Each iteration of BenchmarkWeekMeters/POLICY runs studio-week cut to
// weekMeterHours (the first hours of Monday) twice, in alternating order:
// on its own quotas (today: rolling windows over input plus the real
// output) and with both quota
// organisations on a preset's rules and the same limits: anthropic's as
// the anthropic preset meters (token buckets for RPM, ITPM and OTPM, the
// old TPM becoming the ITPM and a quarter of it the OTPM, cache reads not
// counted, output at max_tokens given back at the end), openai's as the
// openai preset does (rolling windows, input + max_tokens at admission),
// both with the prompt cache, every call asking for max_tokens 8000, and
// the hot models priced. It reports each one's time per run, x-today =
// preset ÷ today over all iterations and the median of the iterations'
// ratios, the same of the process's CPU time (x-today-cpu, -cpu-median;
// the target is <= ~1.15), and the allocations of both together.

import (
	"slices"
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
			o.Cache = &scenario.CacheConfig{Enabled: &on, Lifetime: 5 * time.Minute, WriteFactor: ptr(1.25), ReadFactor: ptr(0.1)}
		case "openai":
			o.MeterAll, o.Input, o.Output = scenario.MeterRolling, scenario.InputAll, scenario.OutputMaxTokens
			o.Cache = &scenario.CacheConfig{Enabled: &on, Lifetime: 5 * time.Minute, WriteFactor: ptr(1.0), ReadFactor: ptr(0.1)}
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
			scs := [2]*scenario.Scenario{weekCut(b, false), weekCut(b, true)}
			b.ReportAllocs()
			b.ResetTimer()
			var total, totalCPU [2]time.Duration
			var ratios, cpuRatios []float64
			var events [2]uint64
			for i := range b.N {
				var took, cpu [2]time.Duration
				// Alternate which goes first, so drift in the machine's load
				// falls on both alike.
				for k := range 2 {
					j := (k + i) % 2
					start, startCPU := time.Now(), processCPU(b)
					w, err := Execute(scs[j], RunSpec{Policy: policy, Seed: 1})
					if err != nil {
						b.Fatal(err)
					}
					took[j], cpu[j] = time.Since(start), processCPU(b)-startCPU
					events[j] += w.EventsProcessed()
				}
				for j := range 2 {
					total[j] += took[j]
					totalCPU[j] += cpu[j]
				}
				ratios = append(ratios, float64(took[1])/float64(took[0]))
				cpuRatios = append(cpuRatios, float64(cpu[1])/float64(cpu[0]))
			}
			n := float64(b.N)
			b.ReportMetric(float64(total[0].Nanoseconds())/n, "today-ns/run")
			b.ReportMetric(float64(total[1].Nanoseconds())/n, "preset-ns/run")
			b.ReportMetric(float64(events[0])/n, "events/run")
			b.ReportMetric(float64(total[1])/float64(total[0]), "x-today")
			slices.Sort(ratios)
			b.ReportMetric(ratios[len(ratios)/2], "x-today-median")
			// The process's CPU time (user + system, the run's goroutines
			// and its GC) is what the target is about; on a shared machine
			// it moves far less with the load than the wall time does.
			b.ReportMetric(float64(totalCPU[1])/float64(totalCPU[0]), "x-today-cpu")
			slices.Sort(cpuRatios)
			b.ReportMetric(cpuRatios[len(cpuRatios)/2], "x-today-cpu-median")
		})
	}
}
