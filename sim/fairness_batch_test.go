package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBatchStateMatchesModel: the batch bookkeeping (an untracked batch's
// record is its state; a tracked one's moves out when it grows past
// LargeBatch or arrives behind a large one; its jobs waiting are arrived −
// started) matches a plain model of every batch over a random run of job
// arrivals, admissions and ends in small batches and large ones on two
// models: each live batch's counts, each model's jobs waiting in large
// batches, which batches are tracked, and the small batches' makespans.
// Some batches are graded: each of their jobs chains a grading job into
// the batch as it finishes, which adds to its jobs but not to its size
// (small, large: the jobs submitted), so that the same batch is small, or
// large, whatever the policy got done.
func TestBatchStateMatchesModel(t *testing.T) {
	w := newWorld(t, smallScenario(t, nil), "fixed-lane", Options{Seed: 1})
	r, ids := &w.rec, &w.ids
	ids.uniqueNames = false
	r.windowStart = 0
	type batch struct {
		name                    string
		model                   int32
		key                     int32
		jobs                    int // to be submitted in all
		graded                  bool
		submitted               int // arrived, less grading jobs
		arrived, started, done  int
		firstArrive, lastFinish Time
		behind, tracked         bool
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var plan []*batch
	for i := range 3 {
		plan = append(plan, &batch{name: fmt.Sprintf("large-%d", i), model: int32(i % 2), jobs: LargeBatch + 1 + rng.IntN(300), graded: i == 1})
	}
	// Graded batches of SmallBatch/2+1 … SmallBatch jobs count more than
	// SmallBatch jobs once graded, but are small.
	for i := range 300 {
		plan = append(plan, &batch{name: fmt.Sprintf("small-%d", i), model: int32(rng.IntN(2)), jobs: 1 + rng.IntN(SmallBatch+10), graded: i%3 == 0})
	}
	var open []*batch // batches with jobs still to arrive
	live := map[int32]*batch{}
	type job struct {
		wj      waitingJob
		b       *batch
		grading bool
	}
	var waiting, running []job
	var wantMakespans []float64
	wantBehind := 0
	largeWaiting := func(m int32) int {
		n := 0
		for _, b := range live {
			if b.model == m && b.submitted > LargeBatch {
				n += b.arrived - b.started
			}
		}
		return n
	}
	next := 0
	for step := 0; next < len(plan) || len(open) > 0 || len(waiting) > 0 || len(running) > 0; step++ {
		w.eng.now = Time(step) * Second
		now := w.eng.now
		switch op := rng.IntN(3); {
		case op == 0 && (next < len(plan) || len(open) > 0):
			// a job arrives: in a new batch, or one already open
			var b *batch
			if next < len(plan) && (len(open) == 0 || rng.IntN(40) == 0) {
				b = plan[next]
				next++
				open = append(open, b)
			} else {
				b = open[rng.IntN(len(open))]
			}
			key, fresh := ids.arrive(b.name, false)
			if fresh {
				b.key, b.firstArrive = key, now
				b.behind = largeWaiting(b.model) > 0
				b.tracked = b.behind
				live[key] = b
			}
			b.arrived++
			b.submitted++
			if b.submitted > LargeBatch {
				b.tracked = true
			}
			if b.submitted == b.jobs {
				open = slices.DeleteFunc(open, func(x *batch) bool { return x == b })
			}
			j := job{waitingJob{model: b.model, batch: key}, b, false}
			r.fairArrive(&j.wj, fresh, now, true)
			waiting = append(waiting, j)
		case op == 1 && len(waiting) > 0:
			k := rng.IntN(len(waiting))
			j := waiting[k]
			waiting = slices.Delete(waiting, k, k+1)
			j.b.started++
			r.fairStart(&j.wj, now, true)
			running = append(running, j)
		case op == 2 && len(running) > 0:
			k := rng.IntN(len(running))
			j := running[k]
			running = slices.Delete(running, k, k+1)
			b := j.b
			b.done++
			b.lastFinish = now
			chained := b.graded && !j.grading
			ended := ids.finish(j.wj.batch, chained)
			if want := b.done == b.arrived && !chained; ended != want {
				t.Fatalf("step %d: batch %s ended %v, want %v", step, b.name, ended, want)
			}
			r.fairFinish(&j.wj, ended, now)
			if chained {
				// Its grading job arrives in the batch at once, on the
				// other model, as World.finish chains it.
				key, fresh := ids.arrive(b.name, true)
				if fresh || key != j.wj.batch {
					t.Fatalf("step %d: batch %s: a grading job went to batch %d (fresh %v), want %d", step, b.name, key, fresh, j.wj.batch)
				}
				b.arrived++
				g := job{waitingJob{model: 1 - b.model, batch: key, grading: true}, b, true}
				r.fairArrive(&g.wj, false, now, true)
				waiting = append(waiting, g)
			}
			if ended {
				// Its jobs still to arrive, if any, make a new batch.
				delete(live, b.key)
				if b.submitted <= SmallBatch {
					wantMakespans = append(wantMakespans, (b.lastFinish - b.firstArrive).Seconds())
					if b.behind {
						wantBehind++
					}
				}
				b.jobs -= b.submitted
				b.submitted, b.arrived, b.started, b.done = 0, 0, 0, 0
			}
		default:
			continue
		}
		for key, b := range live {
			rec := r.fair.batches.at(key)
			s := rec.state()
			if !s.live || int(s.arrived) != b.arrived || int(s.started) != b.started || int(s.done) != b.done ||
				s.behindLarge != b.behind || (rec.ext != nil) != b.tracked || s.model != b.model {
				t.Fatalf("step %d: batch %s: live %v, %d arrived, %d started, %d done, behind large %v, tracked %v; want %+v",
					step, b.name, s.live, s.arrived, s.started, s.done, s.behindLarge, rec.ext != nil, *b)
			}
		}
		for m := range int32(2) {
			if got, want := r.fair.largeWaiting[m], largeWaiting(m); got != want {
				t.Fatalf("step %d: model %d has %d jobs of large batches waiting, want %d", step, m, got, want)
			}
		}
	}
	small := r.fair.small.results(0)
	if small.Count != len(wantMakespans) || small.BehindLarge != wantBehind || !slices.Equal(small.Makespans, wantMakespans) {
		t.Errorf("small batches: %d (%d behind large), makespans %v; want %d (%d), %v",
			small.Count, small.BehindLarge, small.Makespans, len(wantMakespans), wantBehind, wantMakespans)
	}
	if wantBehind == 0 || len(r.fair.tracked) < 3 {
		t.Errorf("%d small batches behind large ones, %d tracked: the test needs both", wantBehind, len(r.fair.tracked))
	}
	t.Logf("%d small batches (%d behind large), %d tracked", len(wantMakespans), wantBehind, len(r.fair.tracked))
}
