package policies

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// ---- Config ----

func TestSchedulerConfigDefaults(t *testing.T) {
	want := SchedulerConfig{
		Tick:         10 * time.Second,
		TargetDepth:  8,
		MinLimit:     1,
		MaxLimit:     10000,
		InitialLimit: 4,
		StepMode:     "additive",
		Step:         1,
		Factor:       1.25,
		StaleAfter:   30 * time.Second,
		TierShare:    0.8,
	}
	if diff := cmp.Diff(want, DefaultSchedulerConfig()); diff != "" {
		t.Errorf("DefaultSchedulerConfig (-want +got):\n%s", diff)
	}
	if err := DefaultSchedulerConfig().Validate(nil); err != nil {
		t.Errorf("defaults do not validate: %v", err)
	}

	// A scenario that sets only what it changes keeps its values; derived
	// defaults follow what it set.
	set := SchedulerConfig{Tick: 5 * time.Second, MinLimit: 6, TierShare: 0.5, StepMode: "multiplicative"}
	want = SchedulerConfig{
		Tick:         5 * time.Second,
		TargetDepth:  8,
		MinLimit:     6,
		MaxLimit:     10000,
		InitialLimit: 6, // default 4, clamped up to min_limit
		StepMode:     "multiplicative",
		Step:         1,
		Factor:       1.25,
		StaleAfter:   15 * time.Second,
		TierShare:    0.5,
	}
	if diff := cmp.Diff(want, set.WithDefaults()); diff != "" {
		t.Errorf("WithDefaults (-want +got):\n%s", diff)
	}
}

// TestSchedulerConfigDecode: the field names a scenario file uses, in YAML
// (durations as strings, unknown keys rejected, as the simulator loads it)
// and in JSON.
func TestSchedulerConfigDecode(t *testing.T) {
	want := SchedulerConfig{
		Tick: 5 * time.Second, TargetDepth: 12, DepthTolerance: 2, MinLimit: 2, MaxLimit: 500, InitialLimit: 10,
		StepMode: StepMultiplicative, Step: 2, Factor: 1.5, Smoothing: 0.3, StaleAfter: time.Minute, TierShare: 0.7,
		Models: map[string]ModelLimits{"gpt-5.5": {TargetDepth: 20, MinLimit: 3, MaxLimit: 400, InitialLimit: 50}},
	}
	const doc = `
tick: 5s
target_depth: 12
depth_tolerance: 2
min_limit: 2
max_limit: 500
initial_limit: 10
step_mode: multiplicative
step: 2
factor: 1.5
smoothing: 0.3
stale_after: 1m
tier_share: 0.7
models:
  gpt-5.5: {target_depth: 20, min_limit: 3, max_limit: 400, initial_limit: 50}
`
	var got SchedulerConfig
	dec := yaml.NewDecoder(strings.NewReader(doc))
	dec.KnownFields(true)
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("yaml: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("yaml (-want +got):\n%s", diff)
	}

	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(want); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"target_depth":12`, `"depth_tolerance":2`, `"step_mode":"multiplicative"`,
		`"stale_after":60000000000`, `"tier_share":0.7`, `"models":{"gpt-5.5":{"target_depth":20,`} {
		if !strings.Contains(buf.String(), key) {
			t.Errorf("json %s lacks %s", buf.String(), key)
		}
	}
	var back SchedulerConfig
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, back); diff != "" {
		t.Errorf("json round trip (-want +got):\n%s", diff)
	}

	// A scenario that sets one field gets the defaults for the rest.
	var partial SchedulerConfig
	if err := yaml.Unmarshal([]byte("tier_share: 0.9\n"), &partial); err != nil {
		t.Fatal(err)
	}
	wantPartial := DefaultSchedulerConfig()
	wantPartial.TierShare = 0.9
	if diff := cmp.Diff(wantPartial, partial.WithDefaults()); diff != "" {
		t.Errorf("partial config with defaults (-want +got):\n%s", diff)
	}
}

func TestSchedulerConfigForModel(t *testing.T) {
	cfg := SchedulerConfig{
		TargetDepth: 20, MinLimit: 2, MaxLimit: 50, InitialLimit: 10,
		Models: map[string]ModelLimits{
			"hot":    {TargetDepth: 40, MaxLimit: 500, InitialLimit: 100},
			"narrow": {MaxLimit: 5},
			"wide":   {MinLimit: 30},
		},
	}
	tests := []struct {
		model string
		want  ModelLimits
	}{
		{"other", ModelLimits{TargetDepth: 20, MinLimit: 2, MaxLimit: 50, InitialLimit: 10}},
		{"hot", ModelLimits{TargetDepth: 40, MinLimit: 2, MaxLimit: 500, InitialLimit: 100}},
		// An inherited initial limit is clamped into the model's range.
		{"narrow", ModelLimits{TargetDepth: 20, MinLimit: 2, MaxLimit: 5, InitialLimit: 5}},
		{"wide", ModelLimits{TargetDepth: 20, MinLimit: 30, MaxLimit: 50, InitialLimit: 30}},
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, cfg.ForModel(tc.model)); diff != "" {
				t.Errorf("ForModel (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSchedulerConfigValidate(t *testing.T) {
	models := []string{"gpt-5.5", "claude-opus-4.8"}
	tests := []struct {
		name string
		cfg  SchedulerConfig
		want string // "" = valid
	}{
		{"zero config", SchedulerConfig{}, ""},
		{"full config", SchedulerConfig{
			Tick: time.Second, TargetDepth: 3, DepthTolerance: 2, MinLimit: 2, MaxLimit: 9, InitialLimit: 3,
			StepMode: StepMultiplicative, Factor: 2, Smoothing: 0.3, StaleAfter: time.Minute, TierShare: 1,
			Models: map[string]ModelLimits{"gpt-5.5": {TargetDepth: 1, MinLimit: 3, MaxLimit: 3}},
		}, ""},
		{"negative tick", SchedulerConfig{Tick: -time.Second}, "tick: must be > 0, got -1s"},
		{"negative target", SchedulerConfig{TargetDepth: -1}, "target_depth: must be >= 1, got -1"},
		{"negative tolerance", SchedulerConfig{DepthTolerance: -2}, "depth_tolerance: must be >= 0, got -2"},
		{"negative min", SchedulerConfig{MinLimit: -1}, "min_limit: must be >= 1, got -1"},
		{"negative max", SchedulerConfig{MaxLimit: -1}, "max_limit: must be >= 1, got -1"},
		{"min above max", SchedulerConfig{MinLimit: 5, MaxLimit: 4}, "min_limit: must be <= max_limit (5 > 4)"},
		{"initial above max", SchedulerConfig{MaxLimit: 4, InitialLimit: 5},
			"initial_limit: must be within [min_limit, max_limit] = [1, 4], got 5"},
		{"unknown step mode", SchedulerConfig{StepMode: "geometric"},
			`step_mode: must be "additive" or "multiplicative", got "geometric"`},
		{"negative step", SchedulerConfig{Step: -1}, "step: must be >= 1, got -1"},
		{"factor not above one", SchedulerConfig{Factor: 0.8}, "factor: must be > 1, got 0.8"},
		{"factor one", SchedulerConfig{Factor: 1}, "factor: must be > 1, got 1"},
		{"smoothing above one", SchedulerConfig{Smoothing: 1.5}, "smoothing: must be within [0, 1] (0 or 1 = off), got 1.5"},
		{"smoothing NaN", SchedulerConfig{Smoothing: math.NaN()}, "smoothing: must be within [0, 1] (0 or 1 = off), got NaN"},
		{"negative stale_after", SchedulerConfig{StaleAfter: -time.Second}, "stale_after: must be > 0, got -1s"},
		{"tier share above one", SchedulerConfig{TierShare: 1.2}, "tier_share: must be within (0, 1], got 1.2"},
		{"negative tier share", SchedulerConfig{TierShare: -0.1}, "tier_share: must be within (0, 1], got -0.1"},
		{"unknown model", SchedulerConfig{Models: map[string]ModelLimits{"gpt-4": {MaxLimit: 3}}},
			`models.gpt-4: unknown model "gpt-4"`},
		{"model min above max", SchedulerConfig{Models: map[string]ModelLimits{"gpt-5.5": {MinLimit: 3, MaxLimit: 2}}},
			"models.gpt-5.5.min_limit: must be <= max_limit (3 > 2)"},
		{"model max below inherited min", SchedulerConfig{MinLimit: 4, Models: map[string]ModelLimits{"gpt-5.5": {MaxLimit: 2}}},
			"models.gpt-5.5.min_limit: must be <= max_limit (4 > 2)"},
		{"model initial outside range", SchedulerConfig{Models: map[string]ModelLimits{"claude-opus-4.8": {MaxLimit: 10, InitialLimit: 11}}},
			"models.claude-opus-4.8.initial_limit: must be within [min_limit, max_limit] = [1, 10], got 11"},
		{"model negative target", SchedulerConfig{Models: map[string]ModelLimits{"gpt-5.5": {TargetDepth: -3}}},
			"models.gpt-5.5.target_depth: must be >= 1 (0 = inherit), got -3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate(models)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("Validate = %q, want %q", got, tc.want)
			}
			_, err = NewScheduler(tc.cfg, models)
			if (err == nil) != (tc.want == "") {
				t.Errorf("NewScheduler error = %v, want error %v", err, tc.want != "")
			}
			if err != nil && !strings.HasPrefix(err.Error(), "scheduler: ") {
				t.Errorf("NewScheduler error %q lacks the policy prefix", err)
			}
		})
	}
}

func TestSchedulerTrigger(t *testing.T) {
	s, err := NewScheduler(SchedulerConfig{Tick: 3 * time.Second}, []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Trigger{Tick: 3 * time.Second}, s.Trigger()); diff != "" {
		t.Errorf("Trigger (-want +got):\n%s", diff)
	}
	if s.Name() != "scheduler" {
		t.Errorf("Name = %q", s.Name())
	}
}

// ---- Controller ----

// controllerCfg pins a single model's range so tests can reason about steps.
func controllerCfg(initial int) SchedulerConfig {
	return SchedulerConfig{
		Tick: 10 * time.Second, TargetDepth: 8, MinLimit: 2, MaxLimit: 20,
		InitialLimit: initial, StaleAfter: 30 * time.Second,
	}
}

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
			cfg := SchedulerConfig{TargetDepth: tc.target, InitialLimit: 4, StepMode: tc.mode}
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
	h, _ := newSchedulerHarness(t, SchedulerConfig{InitialLimit: 40}, 1, 100000)
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

// TestTierInheritance: account → project → batch, the most specific set
// level wins; nothing set means DefaultTier.
func TestTierInheritance(t *testing.T) {
	tests := []struct {
		name               string
		account, proj, bat Tier
		want               Tier
	}{
		{"nothing set", 0, 0, 0, 3},
		{"account only", 1, 0, 0, 1},
		{"project overrides account", 1, 2, 0, 2},
		{"batch overrides project", 1, 2, 4, 4},
		{"batch overrides account", 5, 0, 1, 1},
		{"project only", 0, 2, 0, 2},
		{"batch only", 0, 0, 6, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, s := newSchedulerHarness(t, fixedLimitCfg(10), 1, 0)
			h.enqueue(1, Job{Account: "a", Project: "p", Batch: "b", AccountTier: tc.account, ProjectTier: tc.proj, BatchTier: tc.bat})
			for tier := Tier(1); tier <= 9; tier++ {
				want := 0
				if tier == tc.want {
					want = 1
				}
				if got := s.WaitingInTier(tier); got != want {
					t.Errorf("WaitingInTier(%d) = %d, want %d", tier, got, want)
				}
			}
		})
	}
}

// TestRetier: overriding a level at run time moves waiting jobs that inherit
// from it, and only those.
func TestRetier(t *testing.T) {
	type counts = map[Tier]int
	tests := []struct {
		name string
		do   func(*Scheduler)
		want counts
	}{
		{"nothing", func(*Scheduler) {}, counts{3: 15, 2: 5}},
		// acme/p1 inherits, acme/p2 sets its project tier 2, other is another account.
		{"pin account", func(s *Scheduler) { s.SetAccountTier("acme", 1) }, counts{1: 10, 2: 5, 3: 5}},
		{"pin then unpin account", func(s *Scheduler) { s.SetAccountTier("acme", 1); s.SetAccountTier("acme", 0) }, counts{3: 15, 2: 5}},
		{"project", func(s *Scheduler) { s.SetProjectTier("acme", "p2", 4) }, counts{3: 15, 4: 5}},
		// The same project name under another account is another project.
		{"project of another account", func(s *Scheduler) { s.SetProjectTier("other", "p2", 4) }, counts{3: 10, 2: 5, 4: 5}},
		{"batch", func(s *Scheduler) { s.SetBatchTier("acme", "p1", "b1", 1) }, counts{1: 5, 3: 10, 2: 5}},
		{"batch over pinned account", func(s *Scheduler) {
			s.SetAccountTier("acme", 1)
			s.SetBatchTier("acme", "p1", "b1", 5)
		}, counts{1: 5, 5: 5, 2: 5, 3: 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, s := newSchedulerHarness(t, fixedLimitCfg(100), 1, 0)
			h.enqueue(5, Job{Account: "acme", Project: "p1", Batch: "b1"})
			h.enqueue(5, Job{Account: "acme", Project: "p1", Batch: "b2"})
			h.enqueue(5, Job{Account: "acme", Project: "p2", Batch: "b1", ProjectTier: 2})
			h.enqueue(5, Job{Account: "other", Project: "p2", Batch: "b1"})
			tc.do(s)
			got := counts{}
			for tier := Tier(1); tier <= 9; tier++ {
				if n := s.WaitingInTier(tier); n > 0 {
					got[tier] = n
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("waiting per tier (-want +got):\n%s", diff)
			}
			// Everything still starts, exactly once.
			h.st.fixedFree = 100
			if n := len(h.step()); n != 20 {
				t.Errorf("started %d of 20", n)
			}
		})
	}
}

// TestRetierApplies: a pinned account's waiting jobs take the top tier's
// share at once, and jobs it enqueues later inherit the pin.
func TestRetierApplies(t *testing.T) {
	h, s := newSchedulerHarness(t, fixedLimitCfg(100), 1, 0)
	h.st.fixedFree = 5
	h.enqueue(1000, Job{Account: "bulk", Project: "x", AccountTier: 2})
	h.enqueue(1000, Job{Account: "acme", Project: "y"})
	s.SetAccountTier("acme", 1)
	h.enqueue(1000, Job{Account: "acme", Project: "z"})
	got := map[string]int{}
	for range 100 {
		for _, id := range h.step() {
			got[h.jobs[id].Account]++
		}
		h.finishAll()
	}
	if diff := cmp.Diff(map[string]int{"acme": 400, "bulk": 100}, got); diff != "" {
		t.Errorf("starts per account (-want +got):\n%s", diff)
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

// ---- Steady state and scale ----

// tickLoop is a self-contained steady-state workload without the harness's
// bookkeeping: 241 models behind fluid providers, many projects over three
// tiers, a deep backlog. Jobs run for a fixed number of ticks; every job that
// finishes is replaced by a new arrival, so the backlog stays level and, once
// the limits have settled, so does everything else.
type tickLoop struct {
	s       *Scheduler
	st      *fakeState
	plan    Plan
	now     time.Time
	n       int // ticks taken
	nextID  JobID
	models  int
	caps    []int     // provider capacity per model, in running jobs
	ring    [][]runAt // jobs by the tick (mod duration) they finish
	modelOf map[JobID]ModelID
	names   []string

	// measure counts the allocations of Decide alone into decideAllocs.
	measure      bool
	decideAllocs uint64
	ms           runtime.MemStats
}

type runAt struct {
	id JobID
	m  ModelID
}

func newTickLoop(tb testing.TB, waiting, projects, duration int) *tickLoop {
	const models = 241
	s, err := NewScheduler(SchedulerConfig{InitialLimit: 20}, modelNames(models))
	if err != nil {
		tb.Fatal(err)
	}
	l := &tickLoop{s: s, st: newFakeState(models, 1000000), now: t0, nextID: 1, models: models,
		modelOf: make(map[JobID]ModelID, waiting), ring: make([][]runAt, duration), caps: make([]int, models)}
	for m := range l.caps {
		l.caps[m] = 5 + (m*13)%40
	}
	l.names = make([]string, projects)
	for i := range l.names {
		l.names[i] = fmt.Sprintf("p%d", i)
	}
	for range waiting {
		l.add()
	}
	l.plan.Start = make([]JobID, 0, 20000)
	return l
}

func (l *tickLoop) add() {
	id := l.nextID
	l.nextID++
	// Skewed over models: low model numbers get most jobs.
	m := ModelID((id * id) % JobID(l.models) % JobID(1+id%JobID(l.models)))
	p := l.names[int(id*7919)%len(l.names)]
	l.s.Enqueue(l.now, Job{ID: id, Account: p, Project: p, Batch: "b", AccountTier: Tier(1 + id%3), Model: m, Arrival: l.now})
	l.modelOf[id] = m
}

func (l *tickLoop) tick() {
	l.arrive()
	l.decide()
}

// arrive finishes the jobs due now and enqueues as many new ones.
func (l *tickLoop) arrive() {
	slot := l.n % len(l.ring)
	for _, r := range l.ring[slot] {
		l.st.running[r.m]--
		l.s.Finished(l.now, r.id, r.m)
		delete(l.modelOf, r.id)
		l.add()
	}
	l.ring[slot] = l.ring[slot][:0]
}

func (l *tickLoop) decide() {
	for m := range l.models {
		l.st.depth[m] = max(l.st.running[m]-l.caps[m], 0)
		l.st.asOf[m] = l.now
	}
	l.plan.Reset()
	if l.measure {
		runtime.ReadMemStats(&l.ms)
		before := l.ms.Mallocs
		l.s.Decide(l.now, l.st, &l.plan)
		runtime.ReadMemStats(&l.ms)
		l.decideAllocs += l.ms.Mallocs - before
	} else {
		l.s.Decide(l.now, l.st, &l.plan)
	}
	slot := l.n % len(l.ring)
	for _, id := range l.plan.Start {
		m := l.modelOf[id]
		l.st.running[m]++
		l.ring[slot] = append(l.ring[slot], runAt{id, m})
	}
	l.now = l.now.Add(10 * time.Second)
	l.n++
}

func TestDecideSteadyStateAllocs(t *testing.T) {
	l := newTickLoop(t, 20000, 300, 30)
	for range 150 { // warm up: limits settle, pools and slabs reach their size
		l.tick()
	}
	const ticks = 50
	l.measure = true
	arrivals := 0
	for range ticks {
		arrivals += len(l.ring[l.n%len(l.ring)])
		l.tick()
	}
	if l.decideAllocs > 0 {
		t.Errorf("Decide allocated %d times over %d steady-state ticks, want 0", l.decideAllocs, ticks)
	}
	l.measure = false
	// Arrivals may still grow a lane's heap or a pool to a new high-water
	// mark now and then; report it.
	perTick := testing.AllocsPerRun(ticks, l.tick)
	t.Logf("steady state: Decide %d allocations in %d ticks; a whole tick with ~%d arrivals and the loop's own bookkeeping: %.1f",
		l.decideAllocs, ticks, arrivals/ticks, perTick)
}

// BenchmarkSchedulerTick times Decide alone on a steady backlog ("decide"),
// and a whole tick with its finishes and as many arrivals ("with-arrivals").
func BenchmarkSchedulerTick(b *testing.B) {
	for _, size := range []struct{ waiting, projects int }{{20000, 200}, {300000, 2000}} {
		for _, arrivals := range []bool{false, true} {
			name := fmt.Sprintf("waiting=%d/projects=%d/decide", size.waiting, size.projects)
			if arrivals {
				name = fmt.Sprintf("waiting=%d/projects=%d/with-arrivals", size.waiting, size.projects)
			}
			b.Run(name, func(b *testing.B) {
				l := newTickLoop(b, size.waiting, size.projects, 30)
				for range 150 {
					l.tick()
				}
				starts := 0
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if !arrivals {
						b.StopTimer()
						l.arrive()
						b.StartTimer()
					} else {
						l.arrive()
					}
					l.decide()
					starts += len(l.plan.Start)
				}
				b.ReportMetric(float64(starts)/float64(b.N), "starts/tick")
			})
		}
	}
}

// TestSchedulerRandomized drives the scheduler with random arrivals (out of
// arrival order), finishes, re-tierings, depths and stale readings, and checks
// every decision against an oracle that keeps its own plain list of waiting
// jobs:
//   - every started job was waiting, and starts once;
//   - no model starts more than its free slots, nor all more than the free
//     containers;
//   - work conservation: if containers are left over, no model is left with
//     both a free slot and a waiting job (nothing eligible was missed);
//   - within a project in a tier, on a model, jobs start oldest first;
//   - waiting counts per model and per tier match the oracle's.
func TestSchedulerRandomized(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			randomizedRun(t, seed)
		})
	}
}

func randomizedRun(t *testing.T, seed uint64) {
	const models, steps = 5, 600
	rng := rand.New(rand.NewPCG(seed, 99))
	cfg := SchedulerConfig{InitialLimit: 3, MaxLimit: 12, TierShare: 0.7}
	if seed%2 == 0 {
		cfg.StepMode, cfg.Smoothing = StepMultiplicative, 0.5
	}
	containers := 30 // the pool binds often
	if seed > 2 {
		containers = 200 // the limits bind
	}
	h, s := newSchedulerHarness(t, cfg, models, containers)
	accounts := []string{"a", "b", "c"}
	projects := []string{"p", "q", "r", "s"}
	batches := []string{"x", "y"}
	type key3 = [3]string
	acctOv, projOv, batchOv := map[string]Tier{}, map[key3]Tier{}, map[key3]Tier{}
	tierOf := func(j Job) Tier {
		at, pt, bt := j.AccountTier, j.ProjectTier, j.BatchTier
		if v, ok := acctOv[j.Account]; ok {
			at = v
		}
		if v, ok := projOv[key3{j.Account, j.Project}]; ok {
			pt = v
		}
		if v, ok := batchOv[key3{j.Account, j.Project, j.Batch}]; ok {
			bt = v
		}
		for _, v := range []Tier{bt, pt, at} {
			if v != 0 {
				return v
			}
		}
		return 3
	}
	waiting := map[JobID]Job{}
	older := func(a, b Job) bool {
		if !a.Arrival.Equal(b.Arrival) {
			return a.Arrival.Before(b.Arrival)
		}
		return a.ID < b.ID
	}
	peak, poolBound := 0, 0
	for step := range steps {
		// Arrivals, up to 100 s out of order: a backlog builds, then drains.
		n := rng.IntN(14)
		if step >= steps/2 {
			n = rng.IntN(3)
		}
		for range n {
			j := Job{
				Account: accounts[rng.IntN(3)], Project: projects[rng.IntN(4)], Batch: batches[rng.IntN(2)],
				AccountTier: Tier(rng.IntN(4)), ProjectTier: Tier(rng.IntN(3)) * Tier(rng.IntN(2)),
				BatchTier: Tier(rng.IntN(3)) * Tier(rng.IntN(2)), Model: ModelID(rng.IntN(models)),
				Arrival: h.now.Add(-time.Duration(rng.IntN(100)) * time.Second),
			}
			id := h.enqueue(1, j)[0]
			j.ID = id
			waiting[id] = j
		}
		// Operators re-tier now and then.
		if rng.IntN(20) == 0 {
			a, p, b, tier := accounts[rng.IntN(3)], projects[rng.IntN(4)], batches[rng.IntN(2)], Tier(rng.IntN(3))
			switch rng.IntN(3) {
			case 0:
				s.SetAccountTier(a, tier)
				setOverride(acctOv, a, tier)
			case 1:
				s.SetProjectTier(a, p, tier)
				setOverride(projOv, key3{a, p}, tier)
			case 2:
				s.SetBatchTier(a, p, b, tier)
				setOverride(batchOv, key3{a, p, b}, tier)
			}
		}
		// Random finishes.
		for id := range h.running {
			if rng.IntN(4) == 0 {
				h.finish(id)
			}
		}
		for m := range models {
			age := time.Duration(0)
			if rng.IntN(10) == 0 {
				age = time.Minute // stale
			}
			h.setDepth(ModelID(m), rng.IntN(16), age)
		}
		running := append([]int(nil), h.st.running...)
		freeC := h.st.FreeContainers()
		h.plan.Reset()
		s.Decide(h.now, h.st, &h.plan)
		startsM := make([]int, models)
		for _, id := range h.plan.Start {
			j, ok := waiting[id]
			if !ok {
				t.Fatalf("step %d: started job %d, which is not waiting", step, id)
			}
			delete(waiting, id)
			tier := tierOf(j)
			for _, k := range waiting {
				if k.Model == j.Model && k.Account == j.Account && k.Project == j.Project && tierOf(k) == tier && older(k, j) {
					t.Fatalf("step %d: started job %d (arrived %v) before older job %d (arrived %v) of its project",
						step, j.ID, j.Arrival, k.ID, k.Arrival)
				}
			}
			startsM[j.Model]++
			h.running[id] = true
			h.st.running[j.Model]++
		}
		if len(h.plan.Start) > freeC {
			t.Fatalf("step %d: started %d with %d free containers", step, len(h.plan.Start), freeC)
		}
		waitM := make([]int, models)
		waitT := map[Tier]int{}
		for _, j := range waiting {
			waitM[j.Model]++
			waitT[tierOf(j)]++
		}
		for m := range models {
			free := max(h.plan.Limits[m]-running[m], 0)
			if startsM[m] > free {
				t.Fatalf("step %d: model %d started %d with %d free slots", step, m, startsM[m], free)
			}
			if len(h.plan.Start) < freeC && waitM[m] > 0 && startsM[m] < free {
				t.Fatalf("step %d: model %d left %d free slots with %d jobs waiting and containers to spare",
					step, m, free-startsM[m], waitM[m])
			}
			if got := s.WaitingOn(ModelID(m)); got != waitM[m] {
				t.Fatalf("step %d: WaitingOn(%d) = %d, oracle %d", step, m, got, waitM[m])
			}
		}
		for tier := Tier(1); tier <= 3; tier++ {
			if got := s.WaitingInTier(tier); got != waitT[tier] {
				t.Fatalf("step %d: WaitingInTier(%d) = %d, oracle %d", step, tier, got, waitT[tier])
			}
		}
		if s.Waiting() != len(waiting) {
			t.Fatalf("step %d: Waiting = %d, oracle %d", step, s.Waiting(), len(waiting))
		}
		h.now = h.now.Add(h.tick)
		peak = max(peak, len(waiting))
		if len(h.plan.Start) == freeC && len(waiting) > 0 {
			poolBound++
		}
	}
	if peak < 50 || (containers == 30 && poolBound < 10) {
		t.Errorf("the run exercised too little: peak backlog %d, %d ticks with the pool exhausted", peak, poolBound)
	}
	t.Logf("peak backlog %d, pool exhausted on %d ticks, %d still waiting", peak, poolBound, len(waiting))
}
