package policies

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// ---- Admission ----

// fixedLimitCfg gives every model the same fixed limit, so admission tests
// see no controller at work.
func fixedLimitCfg(limit int) SchedulerConfig {
	return SchedulerConfig{MinLimit: limit, MaxLimit: limit, InitialLimit: limit}
}

// TestTierShares: with every tier backlogged, each tier's share of admitted
// slots converges to its weight, however few slots free up per tick.
func TestTierShares(t *testing.T) {
	tests := []struct {
		tiers     int
		share     float64
		slots     int // free containers per tick
		admitted  int // total to admit
		modelsPer int // spread each tier's jobs over this many models
	}{
		{3, 0.8, 1, 3000, 1},
		{3, 0.8, 2, 3000, 1},
		{3, 0.8, 3, 3000, 1},
		{3, 0.8, 50, 10000, 1},
		{3, 0.8, 7, 5000, 4},
		{2, 0.8, 1, 2000, 1},
		{4, 0.8, 3, 6000, 2},
		{3, 0.5, 1, 3000, 1},
		{3, 0.5, 64, 10000, 3},
		{2, 1, 5, 1000, 1},
	}
	for _, tc := range tests {
		name := fmt.Sprintf("%d tiers share %.1f %d per tick over %d models", tc.tiers, tc.share, tc.slots, tc.modelsPer)
		t.Run(name, func(t *testing.T) {
			cfg := fixedLimitCfg(10000)
			cfg.TierShare = tc.share
			h, s := newSchedulerHarness(t, cfg, tc.modelsPer, 0)
			h.st.fixedFree = tc.slots
			// Weights worked out independently: share, share(1-share), ...,
			// the last tier what is left.
			want := make([]float64, tc.tiers)
			left := 1.0
			for i := range want {
				if i == tc.tiers-1 {
					want[i] = left
				} else {
					want[i] = left * tc.share
				}
				left -= want[i]
			}
			// Enqueue tiers lowest first, so arrival order favours no one.
			for tier := tc.tiers; tier >= 1; tier-- {
				for m := range tc.modelsPer {
					h.enqueue(tc.admitted/tc.modelsPer+1, Job{Account: fmt.Sprintf("a%d", tier),
						Project: fmt.Sprintf("p%d-%d", tier, m), AccountTier: Tier(tier), Model: ModelID(m)})
				}
			}
			got := make([]int, tc.tiers)
			total := 0
			for total < tc.admitted {
				for _, id := range h.step() {
					got[h.jobs[id].AccountTier-1]++
					total++
				}
				h.finishAll()
			}
			for i := range want {
				if sh := share(got[i], total); math.Abs(sh-want[i]) > 0.02 {
					t.Errorf("tier %d: share %.4f of %d admitted, want %.4f ± 0.02 (counts %v)", i+1, sh, total, want[i], got)
				}
				if n := s.Admitted(Tier(i + 1)); n != int64(got[i]) {
					t.Errorf("Admitted(%d) = %d, counted %d", i+1, n, got[i])
				}
			}
		})
	}
}

// TestTierSharesShortWindows: with one slot per tick the top tier's share
// already holds over every window of 50 ticks, not only in the long run.
func TestTierSharesShortWindows(t *testing.T) {
	h, _ := newSchedulerHarness(t, fixedLimitCfg(100), 1, 0)
	h.st.fixedFree = 1
	for tier := 3; tier >= 1; tier-- {
		h.enqueue(1000, Job{Project: fmt.Sprintf("p%d", tier), BatchTier: Tier(tier)})
	}
	top := make([]int, 0, 500)
	for range 500 {
		started := h.step()
		h.finishAll()
		if len(started) != 1 {
			t.Fatalf("started %d jobs with one free container", len(started))
		}
		if h.jobs[started[0]].BatchTier == 1 {
			top = append(top, 1)
		} else {
			top = append(top, 0)
		}
	}
	for i := 0; i+50 <= len(top); i++ {
		n := 0
		for _, v := range top[i : i+50] {
			n += v
		}
		if n < 39 || n > 41 {
			t.Fatalf("ticks %d..%d: top tier took %d of 50 slots, want 40 ± 1", i, i+49, n)
		}
	}
}

// TestTierFlowOn: what a tier cannot use flows on to the next.
func TestTierFlowOn(t *testing.T) {
	t.Run("top tier's model at its limit", func(t *testing.T) {
		cfg := fixedLimitCfg(1000)
		cfg.Models = map[string]ModelLimits{"m0": {MinLimit: 2, MaxLimit: 2, InitialLimit: 2}}
		h, _ := newSchedulerHarness(t, cfg, 2, 0)
		h.st.fixedFree = 10
		h.enqueue(100, Job{Project: "urgent", BatchTier: 1, Model: 0})
		h.enqueue(100, Job{Project: "bulk", BatchTier: 2, Model: 1})
		for tick := range 5 {
			got := map[string]int{}
			for _, id := range h.step() {
				got[h.jobs[id].Project]++
			}
			h.finishAll()
			if diff := cmp.Diff(map[string]int{"urgent": 2, "bulk": 8}, got); diff != "" {
				t.Errorf("tick %d: starts per project (-want +got):\n%s", tick, diff)
			}
		}
	})
	t.Run("top tier empty", func(t *testing.T) {
		h, _ := newSchedulerHarness(t, fixedLimitCfg(1000), 1, 0)
		h.st.fixedFree = 10
		h.enqueue(1000, Job{Project: "two", BatchTier: 2})
		h.enqueue(1000, Job{Project: "three", BatchTier: 3})
		got := map[string]int{}
		for range 50 {
			for _, id := range h.step() {
				got[h.jobs[id].Project]++
			}
			h.finishAll()
		}
		if diff := cmp.Diff(map[string]int{"two": 400, "three": 100}, got); diff != "" {
			t.Errorf("starts per project (-want +got):\n%s", diff)
		}
	})
	t.Run("lower tiers keep moving", func(t *testing.T) {
		h, s := newSchedulerHarness(t, fixedLimitCfg(1000), 1, 0)
		h.st.fixedFree = 1
		h.enqueue(1000, Job{Project: "low", BatchTier: 9})
		h.enqueue(1000, Job{Project: "top", BatchTier: 1})
		h.run(100)
		if got := s.Admitted(9); got != 20 {
			t.Errorf("lowest tier admitted %d of 100, want 20", got)
		}
	})
}

// TestProjectsTakeTurns: within a tier, a 10-job batch and a 50,000-job batch
// advance at the same pace, whatever the number of free slots per tick.
func TestProjectsTakeTurns(t *testing.T) {
	for _, slots := range []int{1, 2, 3, 8} {
		t.Run(fmt.Sprintf("%d per tick", slots), func(t *testing.T) {
			h, _ := newSchedulerHarness(t, fixedLimitCfg(1000), 1, 0)
			h.st.fixedFree = slots
			h.enqueue(50000, Job{Account: "big-co", Project: "big", Batch: "b1"})
			h.now = h.now.Add(5 * time.Minute) // submitted five minutes later
			h.enqueue(10, Job{Account: "small-co", Project: "small", Batch: "delivery"})
			var big, small, ticks int
			for tick := 0; small < 10; tick++ {
				ticks++
				var b, s int
				for _, id := range h.step() {
					if h.jobs[id].Project == "small" {
						s++
					} else {
						b++
					}
				}
				h.finishAll()
				big, small = big+b, small+s
				if small < 10 && (b-s > 1 || s-b > 1) {
					t.Fatalf("tick %d: big %d, small %d starts: not the same pace", tick, b, s)
				}
				if slots%2 == 0 && small < 10 && b != s {
					t.Fatalf("tick %d: big %d, small %d starts with %d slots", tick, b, s, slots)
				}
				if d := big - small; small < 10 && (d > 1 || d < -1) {
					t.Fatalf("after tick %d: big %d, small %d in all", tick, big, small)
				}
				if tick > 40 {
					t.Fatalf("small batch not done after 40 ticks (%d of 10)", small)
				}
			}
			// Half the slots: 20 slots' worth of ticks, rounded up.
			if want := (20 + slots - 1) / slots; ticks > want {
				t.Errorf("small batch took %d ticks, want at most %d", ticks, want)
			}
		})
	}
}

// TestProjectsTakeTurnsManyProjects: every backlogged project gets one turn
// per round, and the turn position carries across ticks.
func TestProjectsTakeTurnsManyProjects(t *testing.T) {
	h, _ := newSchedulerHarness(t, fixedLimitCfg(1000), 1, 0)
	h.st.fixedFree = 3 // 7 projects, 3 slots: rounds straddle ticks
	const projects = 7
	for p := range projects {
		h.enqueue(100+p*1000, Job{Project: fmt.Sprintf("p%d", p)})
	}
	counts := make([]int, projects)
	for range 70 {
		for _, id := range h.step() {
			var p int
			fmt.Sscanf(h.jobs[id].Project, "p%d", &p)
			counts[p]++
		}
		h.finishAll()
	}
	want := []int{30, 30, 30, 30, 30, 30, 30} // 210 slots over 7 projects
	if diff := cmp.Diff(want, counts); diff != "" {
		t.Errorf("starts per project (-want +got):\n%s", diff)
	}
}

// TestOldestFirst: within a project, jobs start by arrival, then ID,
// whatever order they were enqueued in.
func TestOldestFirst(t *testing.T) {
	h, _ := newSchedulerHarness(t, fixedLimitCfg(1000), 2, 0)
	h.st.fixedFree = 3
	type job struct {
		id JobID
		at time.Time
	}
	var all []job
	// A deterministic shuffle of arrivals over two models and two batches,
	// several sharing an arrival time.
	for i := range 60 {
		at := t0.Add(time.Duration((i*37)%23) * time.Second)
		ids := h.enqueue(1, Job{Project: "p", Batch: fmt.Sprintf("b%d", i%2), Model: ModelID(i % 2), Arrival: at})
		all = append(all, job{ids[0], at})
	}
	sort.Slice(all, func(a, b int) bool {
		if !all[a].at.Equal(all[b].at) {
			return all[a].at.Before(all[b].at)
		}
		return all[a].id < all[b].id
	})
	var want, got []JobID
	for _, j := range all {
		want = append(want, j.id)
	}
	for range 20 {
		got = append(got, h.step()...)
		h.finishAll()
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("start order (-want +got):\n%s", diff)
	}
}

// TestOldestFirstAcrossModels: a project with jobs on many models, only some
// of them with free slots, starts the oldest jobs on the models that have.
func TestOldestFirstAcrossModels(t *testing.T) {
	const models = 241
	h, s := newSchedulerHarness(t, fixedLimitCfg(5), models, 0)
	h.st.fixedFree = 1000
	for m := range models {
		h.st.running[m] = 5 // every model full...
	}
	h.st.running[17], h.st.running[200] = 3, 4 // ...but two
	// Job i (ID i+1) is on model i%241 and arrived at second i.
	for i := range 4 * models {
		h.enqueue(1, Job{Project: "wide", Model: ModelID(i % models), Arrival: t0.Add(time.Duration(i) * time.Second)})
	}
	// Model 17 has 2 free slots, model 200 one: jobs 17 and 258 on model 17,
	// job 200 on model 200, oldest first.
	want := []JobID{18, 201, 259}
	got := h.step()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("started (-want +got):\n%s", diff)
	}
	if got, want := s.Waiting(), 4*models-3; got != want {
		t.Errorf("Waiting = %d, want %d", got, want)
	}
	if got := s.WaitingOn(17); got != 2 {
		t.Errorf("WaitingOn(17) = %d, want 2", got)
	}
}

// TestCapacityRespected: starts never exceed free containers across models,
// nor any model's free slots.
func TestCapacityRespected(t *testing.T) {
	tests := []struct {
		name       string
		limit      int
		containers int
	}{
		{"containers bind", 100, 7},
		{"limits bind", 3, 100},
		{"both close", 4, 17},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, s := newSchedulerHarness(t, fixedLimitCfg(tc.limit), 5, tc.containers)
			h.duration = 4
			for m := range 5 {
				h.enqueue(200, Job{Project: fmt.Sprintf("p%d", m%2), Model: ModelID(m), BatchTier: Tier(1 + m%3)})
			}
			for tick := range 100 {
				h.step()
				total := 0
				for m, r := range h.st.running {
					total += r
					if r > tc.limit {
						t.Fatalf("tick %d: model %d runs %d, limit %d", tick, m, r, tc.limit)
					}
				}
				if total > tc.containers {
					t.Fatalf("tick %d: %d running on %d containers", tick, total, tc.containers)
				}
			}
			if s.Waiting() == 1000 {
				t.Errorf("nothing started")
			}
		})
	}
}

// TestOpenModelsAgainstEveryModel: the open list, built from the models
// with waiting jobs only, is the list of every model with a free slot and
// a waiting job, in model order, as jobs join and start on 130 models (three
// words of the set of models with waiting jobs).
func TestOpenModelsAgainstEveryModel(t *testing.T) {
	const models = 130
	names := make([]string, models)
	for i := range names {
		names[i] = fmt.Sprintf("m%d", i)
	}
	s, err := NewScheduler(SchedulerConfig{}, names)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 44))
	now := time.Unix(1_700_000_000, 0)
	id := JobID(0)
	for step := range 3000 {
		for range rng.IntN(6) {
			id++
			m := ModelID(rng.IntN(models))
			if rng.IntN(2) == 0 {
				m = ModelID(rng.IntN(3)) // some models stay busy
			}
			s.Enqueue(now, Job{ID: id, Account: "a", Project: fmt.Sprint(rng.IntN(3)), Model: m, AccountTier: Tier(rng.IntN(4))})
		}
		for ri := range s.recs {
			if s.recs[ri].live && rng.IntN(3) == 0 {
				s.release(int32(ri))
			}
		}
		for i := range s.models {
			s.models[i].limit, s.models[i].running = rng.IntN(4), rng.IntN(4)
		}
		s.openModels()
		var want []ModelID
		for i := range s.models {
			m := &s.models[i]
			if m.limit > m.running && m.waiting > 0 {
				want = append(want, ModelID(i))
			}
			if m.open != slices.Contains(want, ModelID(i)) {
				t.Fatalf("step %d: model %d open %v", step, i, m.open)
			}
		}
		if diff := cmp.Diff(want, s.openList); len(want)+len(s.openList) > 0 && diff != "" {
			t.Fatalf("step %d: open list (-every model +waiting ones):\n%s", step, diff)
		}
	}
}
