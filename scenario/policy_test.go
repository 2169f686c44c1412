package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/scenario/scenariotest"
	"github.com/google/go-cmp/cmp"
)

// testCfg is the config block of the policy registered below.
type testCfg struct {
	Limit int           `yaml:"limit"`
	Wait  time.Duration `yaml:"wait"`
}

func (c testCfg) Validate(models []string) error {
	if c.Limit < 0 {
		return FieldErrorf("limit", "must be >= 0, got %d", c.Limit)
	}
	return nil
}

// built records what the factory of test-cfg was handed.
var built struct {
	cfg testCfg
	arg string
}

func init() {
	RegisterConfigPolicy("test-cfg", func(cfg testCfg, arg string, s *Scenario, models []string) (policies.Policy, error) {
		built.cfg, built.arg = cfg, arg
		return policies.NewFixedLane(s.Policies.FixedLane, models)
	})
}

func TestConfigPolicyBlock(t *testing.T) {
	const at = "    lanes: {a: 20}\n"
	parse := func(block string) (*Scenario, error) {
		if !strings.Contains(scenariotest.Valid, at) {
			t.Fatal("test bug: no fixed_lane lanes in the base scenario")
		}
		return ParseScenario("dir/p.yaml", []byte(strings.Replace(scenariotest.Valid, at, at+block, 1)))
	}
	for _, tc := range []struct{ name, block, want string }{
		{"misspelt key", "  test-cfg: {limt: 3}\n", "dir/p.yaml:27: policies.test-cfg.limt: unknown field (have limit, wait)"},
		{"wrong type", "  test-cfg: {limit: many}\n", `dir/p.yaml:27: policies.test-cfg.limit: want a whole number, got "many"`},
		{"duration without a unit", "  test-cfg: {wait: 5}\n", "dir/p.yaml:27: policies.test-cfg.wait: want a duration with a unit such as 90s or 2h30m, got 5"},
		// 0 parses as a duration, but the YAML decoder refused it in its
		// own words ("cannot unmarshal !!int `0` into time.Duration").
		{"a bare 0 duration", "  test-cfg: {wait: 0}\n", "dir/p.yaml:27: policies.test-cfg.wait: want a duration with a unit such as 0s, 90s or 2h30m, got 0"},
		{"its own check", "  test-cfg:\n    wait: 1s\n    limit: -2\n", "dir/p.yaml:29: policies.test-cfg.limit: must be >= 0, got -2"},
		{"no such policy", "  nosuch: {limit: 3}\n", "dir/p.yaml:27: policies.nosuch: unknown field (have fixed_lane, guards, inspect, scheduler, test-cfg)"},
		{"a policy without settings", "  fixed-lane: {x: 1}\n", "dir/p.yaml:27: policies.fixed-lane: unknown field (have fixed_lane, guards, inspect, scheduler, test-cfg)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(tc.block)
			if err == nil {
				t.Fatal("accepted")
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("error text (-want +got):\n%s", diff)
			}
		})
	}
	sc, err := parse("  test-cfg: {limit: 7, wait: 2m}\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, arg string
		cfg       testCfg
	}{{"test-cfg", "", testCfg{Limit: 7, Wait: 2 * time.Minute}}, {"test-cfg:x y", "x y", testCfg{Limit: 7, Wait: 2 * time.Minute}}} {
		if _, err := NewPolicy(tc.name, sc); err != nil {
			t.Fatal(err)
		}
		if built.cfg != tc.cfg || built.arg != tc.arg {
			t.Errorf("%s: factory got %+v %q, want %+v %q", tc.name, built.cfg, built.arg, tc.cfg, tc.arg)
		}
	}
	// Without a block, the factory gets the zero config.
	plain, err := ParseScenario("dir/v.yaml", []byte(scenariotest.Valid))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewPolicy("test-cfg", plain); err != nil || built.cfg != (testCfg{}) {
		t.Errorf("no block: %v, config %+v", err, built.cfg)
	}
	for name, want := range map[string]bool{"test-cfg": true, "test-cfg:arg": true, "scheduler": true, "scheduler:arg": false, "nosuch": false} {
		if IsPolicy(name) != want || (CheckPolicy(name, plain) == nil) != want {
			t.Errorf("IsPolicy/CheckPolicy(%q): want %v", name, want)
		}
	}
}

// TestConfigPolicyBlockInVariant: a variant overlays the block, and its
// policy may name the registered policy with an argument.
func TestConfigPolicyBlockInVariant(t *testing.T) {
	src := scenariotest.Valid + "variants:\n  mine:\n    policy: \"test-cfg:v\"\n    policies: {test-cfg: {limit: 9}}\n  bad:\n    policies: {test-cfg: {limit: -1}}\n"
	_, err := ParseScenario("dir/v.yaml", []byte(src))
	if err == nil || !strings.Contains(err.Error(), `policies.test-cfg.limit: must be >= 0, got -1 (in variant "bad")`) {
		t.Fatalf("a bad block in a variant: %v", err)
	}
	sc, err := ParseScenario("dir/v.yaml", []byte(strings.Replace(src, "limit: -1", "limit: 1", 1)))
	if err != nil {
		t.Fatal(err)
	}
	v, err := sc.Variant("mine")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewPolicy(v.Policy, v.Scenario); err != nil || built.cfg.Limit != 9 || built.arg != "v" {
		t.Fatalf("variant: %v, %+v", err, built)
	}
}
