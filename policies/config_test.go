package policies

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// ---- Config ----

func TestSchedulerConfigDefaults(t *testing.T) {
	want := SchedulerConfig{
		Tick:             10 * time.Second,
		TargetDepth:      8,
		MinLimit:         1,
		MaxLimit:         10000,
		InitialLimit:     4,
		StepMode:         "additive",
		Step:             1,
		Factor:           1.25,
		StaleAfter:       30 * time.Second,
		TierShare:        0.8,
		RejectLowerAfter: 3,
		Controller:       ControllerSlowStart,
		DeadTime:         30 * time.Second,
		QuotaDeadTime:    2 * time.Minute,
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
		Tick:             5 * time.Second,
		TargetDepth:      8,
		MinLimit:         6,
		MaxLimit:         10000,
		InitialLimit:     6, // default 4, clamped up to min_limit
		StepMode:         "multiplicative",
		Step:             1,
		Factor:           1.25,
		StaleAfter:       15 * time.Second,
		TierShare:        0.5,
		RejectLowerAfter: 3,
		Controller:       ControllerSlowStart,
		DeadTime:         15 * time.Second,
		QuotaDeadTime:    2 * time.Minute,
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
		{"negative dead time", SchedulerConfig{DeadTime: -time.Second}, "dead_time: must be within [0, 16 ticks], got -1s"},
		{"dead time beyond the ring", SchedulerConfig{DeadTime: 170 * time.Second}, "dead_time: must be within [0, 16 ticks], got 2m50s"},
		{"negative job_rate_hold", SchedulerConfig{JobRateHold: -time.Minute}, "job_rate_hold: must be >= 0, got -1m0s"},
		{"quota dead time below the dead time", SchedulerConfig{DeadTime: 90 * time.Second, QuotaDeadTime: time.Minute}, "quota_dead_time: must be >= dead_time (1m30s), got 1m0s"},
		{"unknown controller", SchedulerConfig{Controller: "fuzzy"},
			"controller: must be one of [step search aimd pi gradient inspect bands damped slowstart], got \"fuzzy\""},
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
			"models.gpt-5.5.target_depth: must be >= 1 (left out: inherit), got -3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewScheduler(tc.cfg, models)
			checkValidate(t, tc.cfg.Validate(models), err, tc.want)
			if err != nil && !strings.HasPrefix(err.Error(), "scheduler: ") {
				t.Errorf("NewScheduler error %q lacks the policy prefix", err)
			}
		})
	}
}

// checkValidate wants a config's Validate error to read want ("" = valid)
// and its policy's constructor to fail exactly when Validate does.
func checkValidate(t *testing.T, validate, build error, want string) {
	t.Helper()
	got := ""
	if validate != nil {
		got = validate.Error()
	}
	if got != want {
		t.Errorf("Validate = %q, want %q", got, want)
	}
	if (build == nil) != (want == "") {
		t.Errorf("constructor error = %v, want error %v", build, want != "")
	}
}
