package sim

import (
	"testing"
	"time"
)

// BenchmarkWorld runs the default scenario cut to one hour under each policy
// and reports events per second and allocations per event. Allocations come
// from per-job records (measurements, logs), not from the event loop: see
// TestEngineZeroAllocsPerEvent for the engine alone.
func BenchmarkWorld(b *testing.B) {
	for _, policy := range PolicyNames {
		b.Run(policy, func(b *testing.B) {
			sc, err := LoadScenario("embedded:default")
			if err != nil {
				b.Fatal(err)
			}
			sc.Duration = time.Hour
			sc.Warmup = 10 * time.Minute
			b.ReportAllocs()
			var events uint64
			for i := 0; i < b.N; i++ {
				w, err := Execute(sc, RunSpec{Policy: policy, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				events += w.EventsProcessed()
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
		})
	}
}
