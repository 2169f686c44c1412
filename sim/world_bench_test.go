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

// TestWorldAllocationsPerEvent: the world's event loop allocates nothing per
// event; what it allocates is per job (job maps, per-job measurements) and
// amortised slice growth. A per-event allocation would push this ratio to 1.
func TestWorldAllocationsPerEvent(t *testing.T) {
	sc, err := LoadScenario("embedded:default")
	if err != nil {
		t.Fatal(err)
	}
	sc.Duration = 30 * time.Minute
	sc.Warmup = 5 * time.Minute
	var events, jobs uint64
	allocs := testing.AllocsPerRun(1, func() {
		w, err := Execute(sc, RunSpec{Policy: "scheduler", Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		events = w.EventsProcessed()
		jobs = uint64(w.Counts().JobsArrived)
	})
	perEvent := allocs / float64(events)
	t.Logf("%.0f allocations for %d events and %d jobs: %.4f per event, %.2f per job", allocs, events, jobs, perEvent, allocs/float64(jobs))
	if perEvent > 0.1 {
		t.Errorf("%.3f allocations per event: something allocates in the event loop", perEvent)
	}
}
