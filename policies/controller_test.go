package policies

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// ---- Controller ----

// controllerCfg pins a single model's range so tests can reason about steps.
func controllerCfg(initial int) SchedulerConfig {
	return SchedulerConfig{
		Tick: 10 * time.Second, TargetDepth: 8, MinLimit: 2, MaxLimit: 20,
		InitialLimit: initial, StaleAfter: 30 * time.Second, Controller: ControllerStep,
	}
}

// TestControllerStep is long because it is one table: a row per controller case.
func TestControllerStep(t *testing.T) {
	tests := []struct {
		name       string
		cfg        func(*SchedulerConfig)
		limit      int // initial limit of model 0
		running    int
		waiting    int
		depth      int
		age        time.Duration // of the depth reading
		never      bool          // no reading ever taken
		containers int           // free containers
		other      [2]int        // model 1: running, waiting (limit 10)
		wantLimit  int
		wantAction Action
	}{
		{name: "below target, binding: raise", limit: 10, running: 10, waiting: 5, depth: 3, containers: 50,
			wantLimit: 11, wantAction: ActionRaise},
		{name: "slots freed since last tick, more waiting than free: raise", limit: 10, running: 8, waiting: 5, depth: 3, containers: 50,
			wantLimit: 11, wantAction: ActionRaise},
		{name: "above target: lower", limit: 10, running: 10, waiting: 5, depth: 9, containers: 50,
			wantLimit: 9, wantAction: ActionLower},
		{name: "above target, nothing waiting: lower", limit: 10, running: 4, depth: 30, containers: 50,
			wantLimit: 9, wantAction: ActionLower},
		{name: "above target, limit already below running: hold (no wind-down)", limit: 10, running: 15, waiting: 5, depth: 30, containers: 50,
			wantLimit: 10, wantAction: ActionBelowRunning},
		{name: "above target, limit at running: lower", limit: 10, running: 10, depth: 30, containers: 50,
			wantLimit: 9, wantAction: ActionLower},
		{name: "at target: hold", limit: 10, running: 10, waiting: 5, depth: 8, containers: 50,
			wantLimit: 10, wantAction: ActionHold},
		{name: "inside tolerance band: hold", cfg: func(c *SchedulerConfig) { c.DepthTolerance = 3 },
			limit: 10, running: 10, waiting: 5, depth: 11, containers: 50, wantLimit: 10, wantAction: ActionHold},
		{name: "above tolerance band: lower", cfg: func(c *SchedulerConfig) { c.DepthTolerance = 3 },
			limit: 10, running: 10, waiting: 5, depth: 12, containers: 50, wantLimit: 9, wantAction: ActionLower},
		{name: "no wind-up: nothing waiting", limit: 10, running: 10, depth: 0, containers: 50,
			wantLimit: 10, wantAction: ActionNotBinding},
		{name: "no wind-up: running below limit, waiting jobs fit", limit: 10, running: 5, waiting: 5, depth: 0, containers: 50,
			wantLimit: 10, wantAction: ActionNotBinding},
		{name: "no wind-up: no free containers", limit: 10, running: 10, waiting: 5, depth: 0, containers: 0,
			wantLimit: 10, wantAction: ActionNotBinding},
		{name: "no wind-up: containers cannot fill the free slots", limit: 10, running: 8, waiting: 5, depth: 0, containers: 2,
			wantLimit: 10, wantAction: ActionNotBinding},
		{name: "containers one beyond the free slots: raise", limit: 10, running: 8, waiting: 5, depth: 0, containers: 3,
			wantLimit: 11, wantAction: ActionRaise},
		{name: "no wind-up: another model's free slots take the containers", limit: 10, running: 10, waiting: 5, depth: 0,
			containers: 10, other: [2]int{0, 10}, wantLimit: 10, wantAction: ActionNotBinding},
		{name: "another model's free slots leave containers over: raise", limit: 10, running: 10, waiting: 5, depth: 0,
			containers: 11, other: [2]int{0, 10}, wantLimit: 11, wantAction: ActionRaise},
		{name: "max respected", limit: 20, running: 20, waiting: 5, depth: 0, containers: 50,
			wantLimit: 20, wantAction: ActionRaise},
		{name: "min respected", limit: 2, running: 2, waiting: 5, depth: 50, containers: 50,
			wantLimit: 2, wantAction: ActionLower},
		{name: "additive step", cfg: func(c *SchedulerConfig) { c.Step = 3 },
			limit: 10, running: 10, waiting: 5, depth: 0, containers: 50, wantLimit: 13, wantAction: ActionRaise},
		{name: "additive step capped at max", cfg: func(c *SchedulerConfig) { c.Step = 3 },
			limit: 19, running: 19, waiting: 5, depth: 0, containers: 50, wantLimit: 20, wantAction: ActionRaise},
		{name: "additive step floored at min", cfg: func(c *SchedulerConfig) { c.Step = 3 },
			limit: 4, running: 4, waiting: 5, depth: 20, containers: 50, wantLimit: 2, wantAction: ActionLower},
		{name: "multiplicative raise", cfg: func(c *SchedulerConfig) { c.StepMode = StepMultiplicative },
			limit: 12, running: 12, waiting: 5, depth: 0, containers: 50, wantLimit: 15, wantAction: ActionRaise},
		{name: "multiplicative lower", cfg: func(c *SchedulerConfig) { c.StepMode = StepMultiplicative },
			limit: 15, running: 15, waiting: 5, depth: 20, containers: 50, wantLimit: 12, wantAction: ActionLower},
		{name: "multiplicative raise rounds", cfg: func(c *SchedulerConfig) { c.StepMode = StepMultiplicative },
			limit: 10, running: 10, waiting: 5, depth: 0, containers: 50, wantLimit: 13, wantAction: ActionRaise}, // 12.5
		{name: "multiplicative raise at least one", cfg: func(c *SchedulerConfig) { c.StepMode = StepMultiplicative },
			limit: 2, running: 2, waiting: 5, depth: 0, containers: 50, wantLimit: 3, wantAction: ActionRaise}, // 2.5 → 3
		{name: "multiplicative small raise at least one", cfg: func(c *SchedulerConfig) { c.StepMode = StepMultiplicative; c.MinLimit = 1 },
			limit: 1, running: 1, waiting: 5, depth: 0, containers: 50, wantLimit: 2, wantAction: ActionRaise}, // 1.25 → 1 → 2
		{name: "multiplicative lower at least one", cfg: func(c *SchedulerConfig) { c.StepMode = StepMultiplicative; c.MinLimit = 1 },
			limit: 3, running: 3, waiting: 5, depth: 20, containers: 50, wantLimit: 2, wantAction: ActionLower}, // 2.4 → 2
		{name: "multiplicative lower small", cfg: func(c *SchedulerConfig) { c.StepMode = StepMultiplicative; c.MinLimit = 1 },
			limit: 2, running: 2, waiting: 5, depth: 20, containers: 50, wantLimit: 1, wantAction: ActionLower}, // 1.6 → 2 → 1
		{name: "multiplicative capped at max", cfg: func(c *SchedulerConfig) { c.StepMode = StepMultiplicative; c.Factor = 2 },
			limit: 15, running: 15, waiting: 5, depth: 0, containers: 50, wantLimit: 20, wantAction: ActionRaise},
		{name: "reading at stale_after: still fresh", limit: 10, running: 10, waiting: 5, depth: 0, age: 30 * time.Second,
			containers: 50, wantLimit: 11, wantAction: ActionRaise},
		{name: "stale reading, shallow: hold", limit: 10, running: 10, waiting: 5, depth: 0, age: 31 * time.Second,
			containers: 50, wantLimit: 10, wantAction: ActionStale},
		{name: "stale reading, deep: hold", limit: 10, running: 10, waiting: 5, depth: 100, age: time.Hour,
			containers: 50, wantLimit: 10, wantAction: ActionStale},
		{name: "never read: hold", limit: 10, running: 10, waiting: 5, never: true,
			containers: 50, wantLimit: 10, wantAction: ActionStale},
		{name: "custom stale_after", cfg: func(c *SchedulerConfig) { c.StaleAfter = 2 * time.Minute },
			limit: 10, running: 10, waiting: 5, depth: 0, age: 90 * time.Second, containers: 50, wantLimit: 11, wantAction: ActionRaise},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := controllerCfg(tc.limit)
			cfg.Models = map[string]ModelLimits{"m1": {MinLimit: 10, MaxLimit: 10}}
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			h, s := newSchedulerHarness(t, cfg, 2, 0)
			h.st.fixedFree = tc.containers
			h.st.running[0], h.st.running[1] = tc.running, tc.other[0]
			h.enqueue(tc.waiting, Job{Project: "p", Model: 0})
			h.enqueue(tc.other[1], Job{Project: "q", Model: 1})
			if !tc.never {
				h.setDepth(0, tc.depth, tc.age)
			}
			h.setDepth(1, 8, 0)
			var plan Plan
			s.Decide(h.now, h.st, &plan)
			if got := s.Limit(0); got != tc.wantLimit {
				t.Errorf("limit = %d, want %d", got, tc.wantLimit)
			}
			if got := s.LastAction(0); got != tc.wantAction {
				t.Errorf("action = %v, want %v", got, tc.wantAction)
			}
			if diff := cmp.Diff([]int{tc.wantLimit, 10}, plan.Limits); diff != "" {
				t.Errorf("Plan.Limits (-want +got):\n%s", diff)
			}
		})
	}
}

// TestControllerSmoothing feeds the controller a sequence of readings and
// checks each step against the moving average worked out by hand.
func TestControllerSmoothing(t *testing.T) {
	type reading struct {
		depth int
		at    int // tick the reading was taken at
	}
	tests := []struct {
		name      string
		smoothing float64
		readings  []reading // one per tick, tick i at t0 + i×10s
		want      []int     // limit after each tick, from 10
	}{
		// average 20, 10, 5, 2.5: lower, lower, raise, raise
		{"alpha 0.5", 0.5, []reading{{20, 0}, {0, 1}, {0, 2}, {0, 3}}, []int{9, 8, 9, 10}},
		// raw 20, 0, 0, 0: lower, raise, raise, raise
		{"off (0)", 0, []reading{{20, 0}, {0, 1}, {0, 2}, {0, 3}}, []int{9, 10, 11, 12}},
		{"off (1)", 1, []reading{{20, 0}, {0, 1}, {0, 2}, {0, 3}}, []int{9, 10, 11, 12}},
		// average 20, 10, then the reading of tick 1 again: still 10, not 5
		{"repeated reading counted once", 0.5, []reading{{20, 0}, {0, 1}, {0, 1}, {0, 3}}, []int{9, 8, 7, 8}},
		// alpha 0.25 over 16, 0, 0: 16, 12, 9, 6.75: lower ×3, then raise
		{"alpha 0.25", 0.25, []reading{{16, 0}, {0, 1}, {0, 2}, {0, 3}}, []int{9, 8, 7, 8}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := controllerCfg(10)
			cfg.Smoothing = tc.smoothing
			h, s := newSchedulerHarness(t, cfg, 1, 0)
			h.st.fixedFree = 100
			h.enqueue(50, Job{Project: "p"})
			var got []int
			for i, r := range tc.readings {
				// Every slot taken: the limit binds, and is not below the
				// running count (where lowering is withheld).
				h.st.running[0] = s.Limit(0)
				now := t0.Add(time.Duration(i) * 10 * time.Second)
				h.st.depth[0] = r.depth
				h.st.asOf[0] = t0.Add(time.Duration(r.at) * 10 * time.Second)
				var plan Plan
				s.Decide(now, h.st, &plan)
				got = append(got, s.Limit(0))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("limits (-want +got):\n%s", diff)
			}
		})
	}
}

// TestControllerSettles runs the controller against a fluid provider whose
// settled limit is known analytically and checks that the limit reaches it
// within 30 ticks (five minutes) and then moves at most one step either way.
func TestControllerSettles(t *testing.T) {
	tests := []struct {
		name     string
		provider fluidProvider
		target   int
		mode     StepMode
	}{
		{"exact fixed point", fluidProvider{callsPerJob: 1, capacity: 20}, 8, StepAdditive},     // 28
		{"between two limits", fluidProvider{callsPerJob: 3, capacity: 20}, 8, StepAdditive},    // 9.33
		{"fan-out of four", fluidProvider{callsPerJob: 4, capacity: 90}, 10, StepAdditive},      // 25
		{"multiplicative", fluidProvider{callsPerJob: 1, capacity: 100}, 8, StepMultiplicative}, // 108
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := SchedulerConfig{TargetDepth: tc.target, InitialLimit: 4, StepMode: tc.mode, Controller: ControllerStep}
			h, s := newSchedulerHarness(t, cfg, 1, 100000)
			h.providers[0] = &tc.provider
			h.duration = 3
			h.enqueue(20000, Job{Project: "p"})
			h.run(130)
			settled := tc.provider.settledLimit(tc.target)
			// The band one step wide around the settled limit.
			lo, hi := math.Floor(settled), math.Ceil(settled)
			factor := s.Config().Factor
			if tc.mode == StepMultiplicative {
				lo, hi = settled/factor, settled*factor
			}
			for step := 30; step <= 130; step++ {
				l := float64(h.limitAfter(step, 0))
				if l < lo || l > hi {
					t.Fatalf("limit after step %d = %v, outside the settled band [%v, %v] around %.2f", step, l, lo, hi, settled)
				}
				if step == 30 {
					continue
				}
				prev := float64(h.limitAfter(step-1, 0))
				if tc.mode == StepAdditive && math.Abs(l-prev) > 1 {
					t.Fatalf("limit moved %v → %v after step %d: more than one step", prev, l, step)
				}
				if tc.mode == StepMultiplicative && (l > math.Round(prev*factor) || l < math.Round(prev/factor)) {
					t.Fatalf("limit moved %v → %v after step %d: more than one step", prev, l, step)
				}
			}
		})
	}
}

// TestControllerFollowsCapacity halves the provider's capacity mid-run: the
// limit comes down to the new settled value within 30 ticks.
func TestControllerFollowsCapacity(t *testing.T) {
	h, _ := newSchedulerHarness(t, SchedulerConfig{InitialLimit: 40, Controller: ControllerStep}, 1, 100000)
	p := &fluidProvider{callsPerJob: 1, capacity: 40}
	h.providers[0] = p
	h.duration = 3
	h.enqueue(20000, Job{Project: "p"})
	h.run(40)
	if got, want := h.limitAfter(40, 0), 48; got != want {
		t.Fatalf("limit before the drop = %d, want %d", got, want)
	}
	p.capacity = 20
	h.run(40)
	for step := 70; step <= 80; step++ {
		if got, want := h.limitAfter(step, 0), 28; got != want {
			t.Errorf("limit after step %d = %d, want %d", step, got, want)
		}
	}
}

// TestControllerNoWindUpOverTime: when containers, not the limit, are what
// stops starts, the limit stops rising even though the gateway stays empty
// and jobs keep waiting. When no job waits, it never rises at all.
func TestControllerNoWindUpOverTime(t *testing.T) {
	t.Run("container-bound", func(t *testing.T) {
		h, _ := newSchedulerHarness(t, SchedulerConfig{}, 1, 20)
		h.providers[0] = &fluidProvider{callsPerJob: 1, capacity: 1000}
		h.duration = 3
		h.enqueue(5000, Job{Project: "p"})
		h.run(200)
		top := 0
		for step := 1; step <= 200; step++ {
			top = max(top, h.limitAfter(step, 0))
		}
		// The limit may reach the pool (then containers bind) but no further.
		if top > 20 {
			t.Errorf("limit rose to %d with a pool of 20 containers", top)
		}
		if h.limitAfter(200, 0) < 20 {
			t.Errorf("limit settled at %d, below the pool of 20 it could fill", h.limitAfter(200, 0))
		}
	})
	t.Run("nothing waiting", func(t *testing.T) {
		h, s := newSchedulerHarness(t, SchedulerConfig{InitialLimit: 7}, 3, 100)
		for m := range 3 {
			h.providers[m] = &fluidProvider{callsPerJob: 1, capacity: 1000}
		}
		h.run(100)
		if diff := cmp.Diff([]int{7, 7, 7}, h.limitLog[99]); diff != "" {
			t.Errorf("limits (-want +got):\n%s", diff)
		}
		if got := s.LastAction(0); got != ActionNotBinding {
			t.Errorf("action = %v, want %v", got, ActionNotBinding)
		}
	})
	t.Run("demand below the limit", func(t *testing.T) {
		// 2 jobs arrive per tick and last 3 ticks: 6 running, under the limit of 10.
		h, _ := newSchedulerHarness(t, SchedulerConfig{InitialLimit: 10}, 1, 100)
		h.providers[0] = &fluidProvider{callsPerJob: 1, capacity: 1000}
		h.duration = 3
		for range 100 {
			h.enqueue(2, Job{Project: "p"})
			h.step()
		}
		if got := h.limitAfter(100, 0); got != 10 {
			t.Errorf("limit = %d, want 10 (never binding)", got)
		}
	})
}
