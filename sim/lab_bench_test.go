package sim

// The whole lab against the minimal reference loop on the same M/M/c queue.
//
//	go test -bench LabMMc -run '^$' -benchtime=5x ./sim/
//
// BenchmarkLabMMc/reference is engMMcReference's loop (a bare binary heap
// of {at, seq}, precomputed exponential draws) run until labMMcCustomers
// customers have departed. BenchmarkLabMMc/lab is the whole lab on the same
// queue expressed as a scenario (mmcScenario: single-call jobs, c streams,
// exponential service of mean 1 s) under the fixed-lane policy: policy,
// world, workload generator, gateway, provider, recorder, run end to end
// for the time in which labMMcCustomers arrive on average. Parsing the
// scenario is outside the timer. Both report ns/customer (wall time per
// departed customer); the lab line also reports x-ref = lab ns/customer ÷
// reference ns/customer from the same invocation, events/customer and
// allocs/customer. The goal is x-ref <= 8 (stretch 5).
//
// BenchmarkLabMMc/lab-pregenerated is a diagnostic, not a target: the same
// run with the job stream drawn before the timer and replayed from a slice,
// so the difference from /lab is the workload generator's share. bench/run.sh adds SimPy's
// time per customer on the same model.

import (
	"testing"

	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/workloads"
)

// The M/M/c of BenchmarkLabMMc: BenchmarkMMc's queue (c = engMMcServers,
// ρ = engMMcRho, μ = 1/s), labMMcCustomers customers per op.
const labMMcCustomers = 100_000

func labMMcLambda() float64 { return engMMcRho * engMMcServers }

// labMMcScenario is the benchmark's M/M/c as a scenario, long enough for
// labMMcCustomers arrivals on average.
func labMMcScenario(tb testing.TB) *scenario.Scenario {
	lambda := labMMcLambda()
	return mmcScenario(tb, engMMcServers, lambda, labMMcCustomers/lambda/3600)
}

func reportPerCustomer(b *testing.B, customers int64) float64 {
	ns := float64(b.Elapsed().Nanoseconds()) / float64(customers)
	b.ReportMetric(ns, "ns/customer")
	b.ReportMetric(1e9/ns, "customers/s")
	return ns
}

func BenchmarkLabMMc(b *testing.B) {
	inter, service := engMMcDraws()
	var refNs float64
	b.Run("reference", func(b *testing.B) {
		b.ReportAllocs()
		var customers int64
		for range b.N {
			m := &engMMc{servers: engMMcServers, inter: inter, service: service}
			m.runReference(1<<62, labMMcCustomers)
			customers += int64(m.departures)
		}
		refNs = reportPerCustomer(b, customers)
	})
	b.Run("lab", func(b *testing.B) {
		sc := labMMcScenario(b)
		b.ReportAllocs()
		var customers int64
		var events uint64
		for range b.N {
			w, err := Execute(sc, RunSpec{Policy: "fixed-lane", Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			customers += w.Counts().JobsCompleted
			events += w.EventsProcessed()
		}
		ns := reportPerCustomer(b, customers)
		b.ReportMetric(float64(events)/float64(customers), "events/customer")
		if refNs > 0 {
			b.ReportMetric(ns/refNs, "x-ref")
		}
	})
	// lab-unobserved is a diagnostic: the same run with the recorder's
	// fairness bookkeeping off (recorder.blind, as TestDecisionsIgnoreRecorder
	// runs it), so lab − lab-unobserved is what that observation costs.
	b.Run("lab-unobserved", func(b *testing.B) {
		sc := labMMcScenario(b)
		b.ReportAllocs()
		var customers int64
		for range b.N {
			pol, err := scenario.NewPolicy("fixed-lane", sc)
			if err != nil {
				b.Fatal(err)
			}
			w, err := NewWorld(sc, Options{Seed: 1, Policy: pol})
			if err != nil {
				b.Fatal(err)
			}
			w.rec.blind = true
			if err := w.Run(); err != nil {
				b.Fatal(err)
			}
			customers += w.Counts().JobsCompleted
		}
		ns := reportPerCustomer(b, customers)
		if refNs > 0 {
			b.ReportMetric(ns/refNs, "x-ref")
		}
	})
	b.Run("lab-pregenerated", func(b *testing.B) {
		sc := labMMcScenario(b)
		gen, err := workloads.NewGenerator(sc.Workload, sc.Catalogue(), sc.Duration, 1)
		if err != nil {
			b.Fatal(err)
		}
		var jobs []workloads.Job
		for job, ok := gen.Next(); ok; job, ok = gen.Next() {
			jobs = append(jobs, job)
		}
		b.ReportAllocs()
		b.ResetTimer()
		var customers int64
		for range b.N {
			w, err := Execute(sc, RunSpec{Policy: "fixed-lane", Seed: 1, Source: &jobSlice{jobs: jobs}})
			if err != nil {
				b.Fatal(err)
			}
			customers += w.Counts().JobsCompleted
		}
		ns := reportPerCustomer(b, customers)
		if refNs > 0 {
			b.ReportMetric(ns/refNs, "x-ref")
		}
	})
}

// jobSlice replays jobs drawn in advance.
type jobSlice struct{ jobs []workloads.Job }

func (s *jobSlice) Next() (workloads.Job, bool) {
	if len(s.jobs) == 0 {
		return workloads.Job{}, false
	}
	job := s.jobs[0]
	s.jobs = s.jobs[1:]
	return job, true
}

func (s *jobSlice) Err() error { return nil }

// UniqueBatches: the jobs are the generator's, in its order.
func (s *jobSlice) UniqueBatches() bool { return true }
