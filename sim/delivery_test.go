package sim

import (
	"math"
	"testing"
	"time"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
)

// deliveryInputs are what the queueing arithmetic reads of a delivery
// scenario: the large batch of N jobs at 0, the small one of n jobs at
// arrive, a running-job limit L under both policies, a job's container
// time H (startup + its one call, on an unloaded provider with no jitter)
// and the scheduler's tick.
type deliveryInputs struct {
	N, n, L     int
	arrive, H   float64
	tick, cycle float64
}

func readDelivery(t *testing.T, sc *scenario.Scenario) deliveryInputs {
	t.Helper()
	w := sc.Workload
	m := sc.Models[0]
	b := w.Behaviours["single"]
	d := deliveryInputs{N: int(w.Batches.Size.Value), n: int(w.Background.Size.Value), L: sc.Policies.FixedLane.Lanes[m.Name],
		arrive: w.Background.Bursts[0].At.Seconds(),
		H:      (sc.Containers.Startup + m.TTFT).Seconds() + b.OutputTokens.Value/m.DecodeRate,
		tick:   sc.Policies.Scheduler.Tick.Seconds()}
	if s := sc.Policies.Scheduler; s.MinLimit != d.L || s.MaxLimit != d.L {
		t.Fatalf("the scheduler's limit is not pinned to the lane's cap %d: %d..%d", d.L, s.MinLimit, s.MaxLimit)
	}
	// Under the scheduler a freed slot is filled at the next tick: the
	// lane's jobs start in waves one cycle apart.
	d.cycle = math.Ceil(d.H/d.tick) * d.tick
	return d
}

// fixedLaneMakespan is the small batch's makespan under first come, first
// served: every job of the large batch arrived first, so the small one
// starts in the first wave with room once they have all started. Waves of
// L start every H (a slot is refilled the moment it frees), the large
// batch filling ⌊N/L⌋ whole waves and r = N mod L of the next.
func (d deliveryInputs) fixedLaneMakespan() float64 {
	wave := d.N / d.L
	if r := d.N % d.L; r > 0 && d.L-r < d.n {
		wave++ // the remainder's wave has no room for the whole batch
	}
	waves := math.Ceil(float64(d.n) / float64(d.L)) // its own waves, if larger than L
	return float64(wave)*d.H + waves*d.H - d.arrive
}

// schedulerBound is the most the small batch can take under the
// scheduler: the two projects take turns, so each wave gives it at least
// ⌊L/2⌋ of the slots; its first wave comes within one cycle of its arrival
// and it needs ⌈n/⌊L/2⌋⌉ of them, the last job then taking H.
func (d deliveryInputs) schedulerBound() float64 {
	return math.Ceil(float64(d.n)/float64(d.L/2))*d.cycle + d.H
}

// aloneBound is the most it takes alone on the lane: n ≤ L jobs start at
// the next tick and end H later.
func (d deliveryInputs) aloneBound() float64 {
	return math.Ceil(float64(d.n)/float64(d.L))*d.tick + d.H
}

// smallFromLog is the small batch's makespan from the event log: the
// project whose first job arrived second is the small batch's; from its
// first arrival to its last finish. It also returns the time the large
// batch's last job started and the small one's first.
func smallFromLog(t *testing.T, log []LogRecord) (makespan, lastLargeStart, firstSmallStart float64) {
	t.Helper()
	var arrive, finish float64
	project := int32(-1)
	first, smallJobs, finished := true, 0, 0
	firstSmallStart = -1
	for _, rec := range log {
		switch rec.Event {
		case LogJobArrive:
			if rec.Project == 0 {
				continue
			}
			if project < 0 {
				project, arrive = rec.Project, rec.T.Seconds()
			}
			if rec.Project != project {
				t.Fatalf("a third project %d", rec.Project)
			}
			smallJobs++
		case LogJobStart:
			if rec.Project == project {
				if first {
					firstSmallStart, first = rec.T.Seconds(), false
				}
			} else {
				lastLargeStart = rec.T.Seconds()
			}
		case LogJobFinish:
			if rec.Project == project {
				finished++
				finish = rec.T.Seconds()
			}
		}
	}
	if project < 0 {
		t.Fatal("the batches came from the same project (pick another seed)")
	}
	if finished != smallJobs {
		t.Fatalf("%d of the small batch's %d jobs finished", finished, smallJobs)
	}
	return finish - arrive, lastLargeStart, firstSmallStart
}

// TestDelivery is the source's example: "a customer's 20-job delivery sat
// behind a 5,000-job evaluation batch started five minutes earlier" under
// fixed lanes, and "a 50,000-job batch and a 10-job batch advance at the
// same pace" under the scheduler. The expectations come from the
// scenario's inputs by queueing arithmetic (above) and from the event log,
// not from the recorder, whose small-batch makespan must then agree with
// both.
func TestDelivery(t *testing.T) {
	for _, name := range []string{"delivery", "delivery-50k"} {
		sc, err := scenario.LoadScenario("embedded:" + name)
		if err != nil {
			t.Fatal(err)
		}
		d := readDelivery(t, sc)
		got := map[string]float64{}
		for _, policy := range []string{"fixed-lane", "scheduler"} {
			t.Run(name+"/"+policy, func(t *testing.T) {
				w := runWorld(t, sc, policy, Options{Seed: 1, Log: true}, nil)
				logSpan, lastLarge, firstSmall := smallFromLog(t, w.Log())
				f := results.Summarize(results.RunData{Fairness: w.Fairness()}).Fairness
				if f.BehindLarge != 1 || f.BehindLargeKM.Ended != 1 || f.BehindLargeKM.Censored != 0 {
					t.Fatalf("%d small batches behind large, %d finished, %d censored; want the one, finished",
						f.BehindLarge, f.BehindLargeKM.Ended, f.BehindLargeKM.Censored)
				}
				rec := f.BehindLargeKM.P50
				if math.Abs(rec-logSpan) > 1e-6 {
					t.Errorf("the recorder's makespan %.3f s, the log's %.3f s", rec, logSpan)
				}
				got[policy] = logSpan
				switch policy {
				case "fixed-lane":
					want := d.fixedLaneMakespan()
					t.Logf("%d jobs then %d at %.0f s, limit %d, %.0f s a job: makespan %.0f s (log), %.0f s (arithmetic); the large batch's last start %.0f s, the small's first %.0f s",
						d.N, d.n, d.arrive, d.L, d.H, logSpan, want, lastLarge, firstSmall)
					if math.Abs(logSpan-want) > 1e-3 {
						t.Errorf("makespan %.3f s, first come first served gives %.3f s", logSpan, want)
					}
					if firstSmall < lastLarge {
						t.Errorf("a small job started at %.0f s, before the large batch's last at %.0f s", firstSmall, lastLarge)
					}
				case "scheduler":
					bound, alone := d.schedulerBound(), d.aloneBound()
					t.Logf("makespan %.0f s (log); alone at most %.0f s; bound %.0f s (⌈n/⌊L/2⌋⌉ cycles of %.0f s + %.0f s)", logSpan, alone, bound, d.cycle, d.H)
					if logSpan > bound || logSpan < d.H {
						t.Errorf("makespan %.0f s outside [H, bound] = [%.0f, %.0f] s", logSpan, d.H, bound)
					}
					if firstSmall > lastLarge {
						t.Errorf("the small batch waited for the large one: first start %.0f s, large's last %.0f s", firstSmall, lastLarge)
					}
				}
			})
		}
		// Alone: the same small batch with no large one before it, under
		// the scheduler; with the large one it takes at most a cycle per
		// ⌊L/2⌋ of its jobs more.
		t.Run(name+"/alone", func(t *testing.T) {
			alone := *sc
			alone.Workload.Batches.Bursts = nil
			alone.Duration = time.Hour
			w := runWorld(t, &alone, "scheduler", Options{Seed: 1, Log: true}, nil)
			var first, last float64 = -1, 0
			for _, rec := range w.Log() {
				switch rec.Event {
				case LogJobArrive:
					if first < 0 {
						first = rec.T.Seconds()
					}
				case LogJobFinish:
					last = rec.T.Seconds()
				}
			}
			span := last - first
			t.Logf("alone: %.0f s (bound %.0f s); behind the large batch: scheduler %.0f s, fixed lanes %.0f s",
				span, d.aloneBound(), got["scheduler"], got["fixed-lane"])
			if span > d.aloneBound() || span < d.H {
				t.Errorf("alone %.0f s outside [H, alone bound] = [%.0f, %.0f] s", span, d.H, d.aloneBound())
			}
			if s := got["scheduler"]; s > 0 && s-span > math.Ceil(float64(d.n)/float64(d.L/2))*d.cycle {
				t.Errorf("behind the large batch %.0f s, alone %.0f s: more than %.0f s apart", s, span, math.Ceil(float64(d.n)/float64(d.L/2))*d.cycle)
			}
		})
	}
}
