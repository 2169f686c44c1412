package policies

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestFixedLaneValidate(t *testing.T) {
	models := []string{"gpt-5.5", "opus", "sonnet"}
	tests := []struct {
		name string
		cfg  FixedLaneConfig
		want string // "" = valid
	}{
		{"no lanes", FixedLaneConfig{GlobalCap: 10}, ""},
		{"lanes within the cap", FixedLaneConfig{GlobalCap: 10, Lanes: map[string]int{"gpt-5.5": 4, "opus": 6}}, ""},
		{"zero global cap", FixedLaneConfig{}, "global_cap: must be > 0, got 0"},
		{"negative global cap", FixedLaneConfig{GlobalCap: -5}, "global_cap: must be > 0, got -5"},
		{"lane cap above global cap", FixedLaneConfig{GlobalCap: 10, Lanes: map[string]int{"opus": 11}},
			"lanes.opus: cap 11 is above global_cap 10"},
		{"unknown model", FixedLaneConfig{GlobalCap: 10, Lanes: map[string]int{"gpt-4": 2}},
			`lanes.gpt-4: unknown model "gpt-4"`},
		{"zero lane cap", FixedLaneConfig{GlobalCap: 10, Lanes: map[string]int{"sonnet": 0}},
			"lanes.sonnet: cap must be > 0, got 0"},
		{"caps add up above global cap", FixedLaneConfig{GlobalCap: 10, Lanes: map[string]int{"gpt-5.5": 6, "opus": 5}},
			"lanes: caps add up to 11, above global_cap 10"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewFixedLane(tc.cfg, models)
			checkValidate(t, tc.cfg.Validate(models), err, tc.want)
		})
	}
}

// TestFixedLaneCaps: every dedicated lane runs up to its cap, every other
// model shares what the lanes leave of the global cap.
func TestFixedLaneCaps(t *testing.T) {
	models := []string{"hot", "warm", "cold-a", "cold-b"}
	tests := []struct {
		name       string
		lanes      map[string]int
		containers int
		want       []int // running per model after one decision
		wantLimits []int
	}{
		{"two lanes and the shared rest", map[string]int{"hot": 3, "warm": 2}, 100,
			[]int{3, 2, 5, 0}, []int{3, 2, 5, 5}}, // cold-a's jobs came first
		{"no lanes: one shared lane", nil, 100,
			[]int{0, 0, 10, 0}, []int{10, 10, 10, 10}},
		{"every model a lane", map[string]int{"hot": 4, "warm": 3, "cold-a": 2, "cold-b": 1}, 100,
			[]int{4, 3, 2, 1}, []int{4, 3, 2, 1}},
		// Lanes are visited in name order (cold-a, hot, warm), then the shared lane.
		{"containers short", map[string]int{"hot": 3, "warm": 2, "cold-a": 4}, 6,
			[]int{2, 0, 4, 0}, []int{3, 2, 4, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fl, err := NewFixedLane(FixedLaneConfig{GlobalCap: 10, Lanes: tc.lanes}, models)
			if err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, fl, len(models), tc.containers)
			// The shared models' jobs first, so first-come-first-served
			// inside the shared lane favours cold-a.
			for _, m := range []ModelID{2, 3, 0, 1} {
				h.enqueue(20, Job{Project: "p", Model: m})
			}
			h.step()
			if diff := cmp.Diff(tc.want, h.st.running); diff != "" {
				t.Errorf("running per model (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantLimits, h.limitLog[0]); diff != "" {
				t.Errorf("Plan.Limits (-want +got):\n%s", diff)
			}
			// Nothing finishes: a second decision starts nothing more.
			if started := h.step(); len(started) != 0 {
				t.Errorf("second decision started %d jobs with every lane full", len(started))
			}
			total := 0
			for _, r := range tc.want {
				total += r
			}
			if got := fl.Waiting(); got != 80-total {
				t.Errorf("Waiting = %d, want %d", got, 80-total)
			}
		})
	}
}

// TestFixedLaneFCFS: within a lane, jobs start in the order they came, each
// one as soon as a slot frees, whatever their project or tier.
func TestFixedLaneFCFS(t *testing.T) {
	fl, err := NewFixedLane(FixedLaneConfig{GlobalCap: 2}, []string{"m"})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, fl, 1, 100)
	a := h.enqueue(3, Job{Project: "a"})
	b := h.enqueue(2, Job{Project: "b", AccountTier: 1}) // a tier changes nothing
	var order []JobID
	for range 5 {
		started := h.step()
		order = append(order, started...)
		if len(started) > 0 {
			h.finish(started[0]) // one slot frees per tick
		}
	}
	want := []JobID{a[0], a[1], a[2], b[0], b[1]}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("start order (-want +got):\n%s", diff)
	}
}

// TestFixedLaneMatchesReference: FixedLane's decisions (jobs started,
// limits) are those of a plain reference of its rule (lanes in order, each
// lane's oldest jobs while its cap and the containers last), over random
// arrivals, finishes and container counts, decisions with nothing waiting
// among them. Every call is given a random instant (and every job a random
// Arrival), which the reference never reads: FixedLane may be given the
// zero time (TimeFree).
func TestFixedLaneMatchesReference(t *testing.T) {
	models := []string{"a", "b", "c"}
	fl, err := NewFixedLane(FixedLaneConfig{GlobalCap: 6, Lanes: map[string]int{"b": 2}}, models)
	if err != nil {
		t.Fatal(err)
	}
	laneOf, caps := []int{1, 0, 1}, []int{2, 4} // b's lane first (by name), then the shared lane
	queues := make([][]JobID, 2)
	var running []JobID // started, unfinished, in order
	modelOf := map[JobID]ModelID{}
	runningLane := make([]int, 2)
	r := rand.New(rand.NewPCG(7, 8))
	var plan Plan
	next := JobID(0)
	for step := range 20_000 {
		now := time.Unix(r.Int64N(1<<40), r.Int64N(1e9))
		switch k := r.IntN(10); {
		case k < 4:
			m := ModelID(r.IntN(len(models)))
			job := Job{ID: next, Model: m, Arrival: time.Unix(r.Int64N(1<<40), 0)}
			modelOf[next] = m
			next++
			fl.Enqueue(now, job)
			queues[laneOf[m]] = append(queues[laneOf[m]], job.ID)
		case k < 7 && len(running) > 0:
			i := r.IntN(len(running))
			id := running[i]
			running = append(running[:i], running[i+1:]...)
			fl.Finished(now, id, modelOf[id])
			runningLane[laneOf[modelOf[id]]]--
		default:
			free := r.IntN(4)
			var want []JobID
			left := free
			for lane := range queues {
				for len(queues[lane]) > 0 && runningLane[lane] < caps[lane] && left > 0 {
					want = append(want, queues[lane][0])
					queues[lane] = queues[lane][1:]
					runningLane[lane]++
					left--
				}
			}
			plan.Reset()
			fl.Decide(now, freeState{free: free}, &plan)
			if diff := cmp.Diff(want, plan.Start, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("step %d: started (-want +got):\n%s", step, diff)
			}
			if diff := cmp.Diff([]int{4, 2, 4}, plan.Limits); diff != "" {
				t.Fatalf("step %d: limits (-want +got):\n%s", step, diff)
			}
			running = append(running, want...)
		}
	}
}

// deliveryScenario is the negative control of the design: a 5,000-job batch
// on one model, and five minutes later a 20-job customer delivery from
// another project on the same model. It returns how many batch jobs had
// started when the first delivery job started, and the ticks from the
// delivery's arrival until its first and its last job started.
func deliveryScenario(t *testing.T, pol Policy) (batchBefore, firstWait, lastWait int) {
	t.Helper()
	h := newHarness(t, pol, 1, 1000)
	h.providers[0] = &fluidProvider{callsPerJob: 1, capacity: 42} // settles at 50 with target 8
	h.duration = 7                                                // 70 s
	batch := h.enqueue(5000, Job{Account: "lab", Project: "nightly-eval", Batch: "b1"})
	h.run(30)
	arrival := h.ticks
	delivery := h.enqueue(20, Job{Account: "customer", Project: "delivery", Batch: "d1"})
	for tick := 0; ; tick++ {
		h.step()
		if _, done := h.startTick[delivery[len(delivery)-1]]; done {
			break
		}
		if tick > 2000 {
			t.Fatalf("%s: delivery not started after %d ticks", pol.Name(), tick)
		}
	}
	first, last := -1, -1
	for _, id := range delivery {
		st := h.startTick[id]
		if first < 0 || st < first {
			first = st
		}
		last = max(last, st)
	}
	for _, id := range batch {
		if st, ok := h.startTick[id]; ok && st <= first {
			batchBefore++
		}
	}
	return batchBefore, first - arrival, last - arrival
}

func TestDeliveryBehindBatch(t *testing.T) {
	t.Run("fixed-lane", func(t *testing.T) {
		fl, err := NewFixedLane(FixedLaneConfig{GlobalCap: 200, Lanes: map[string]int{"m0": 50}}, []string{"m0"})
		if err != nil {
			t.Fatal(err)
		}
		before, first, last := deliveryScenario(t, fl)
		t.Logf("fixed-lane: %d batch jobs started first; delivery waited %d–%d ticks", before, first, last)
		if before < 4950 {
			t.Errorf("first delivery job started after only %d of 5,000 batch jobs; want the batch (nearly) drained", before)
		}
		if first < 500 {
			t.Errorf("first delivery job waited %d ticks, want the batch's ~590", first)
		}
	})
	t.Run("scheduler", func(t *testing.T) {
		s, err := NewScheduler(SchedulerConfig{InitialLimit: 50}, []string{"m0"})
		if err != nil {
			t.Fatal(err)
		}
		before, first, last := deliveryScenario(t, s)
		t.Logf("scheduler: %d batch jobs started first; delivery waited %d–%d ticks", before, first, last)
		if last > 7 {
			t.Errorf("last delivery job waited %d ticks, want within one job's run (7 ticks)", last)
		}
		if before > 1000 {
			t.Errorf("%d batch jobs started before the delivery's first", before)
		}
	})
}

func ExampleFixedLane() {
	fl, err := NewFixedLane(FixedLaneConfig{GlobalCap: 10, Lanes: map[string]int{"hot": 4}}, []string{"hot", "cold"})
	if err != nil {
		panic(err)
	}
	now := time.Date(2025, 9, 30, 12, 0, 0, 0, time.UTC)
	for id := JobID(1); id <= 8; id++ {
		fl.Enqueue(now, Job{ID: id, Model: ModelID(id % 2), Arrival: now})
	}
	st := newFakeState(2, 100)
	var plan Plan
	fl.Decide(now, st, &plan)
	fmt.Println("start:", plan.Start, "limits:", plan.Limits, "waiting:", fl.Waiting())
	// Output: start: [2 4 6 8 1 3 5 7] limits: [4 6] waiting: 0
}
