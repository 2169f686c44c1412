package scenario

import (
	"strconv"
	"strings"
	"testing"

	"github.com/evalsched/lab/scenario/scenariotest"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// TestWarnings: step and step_mode set under a controller whose depth rule
// ignores them are named with their line; under one that reads them, or
// left unset, nothing is said; an overlay that sets one is caught too.
func TestWarnings(t *testing.T) {
	base := scenariotest.Valid                          // ends in the policies mapping: the cases add its scheduler
	line := strconv.Itoa(strings.Count(base, "\n") + 1) // the first added line
	for _, tc := range []struct {
		name, policies string
		want           []string // substrings, one per warning
	}{
		{"unset", "", nil},
		{"step under slowstart", "  scheduler: {step: 4}\n", []string{"w.yaml:" + line + ": policies.scheduler.step has no effect on the slowstart controller's depth rule"}},
		{"both under pi", "  scheduler:\n    controller: pi\n    step_mode: additive\n    step: 4\n",
			[]string{"policies.scheduler.step has no effect on the pi", "policies.scheduler.step_mode has no effect on the pi"}},
		{"step under aimd", "  scheduler: {controller: aimd, step: 4, step_mode: additive}\n", []string{"policies.scheduler.step_mode has no effect on the aimd"}},
		{"both under step", "  scheduler: {controller: step, step: 4, step_mode: multiplicative}\n", nil},
		{"ignore_quota", "  scheduler: {step: 4, ignore_quota: true}\n", []string{"policies.scheduler.step has no effect: the slowstart controller does not read it, and ignore_quota"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := ParseScenario("w.yaml", []byte(base+tc.policies))
			if err != nil {
				t.Fatal(err)
			}
			got := sc.Warnings()
			if len(got) != len(tc.want) {
				t.Fatalf("warnings %q, want %d", got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("warning %q lacks %q", got[i], w)
				}
			}
		})
	}
	sc, err := ParseScenario("w.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	over, err := sc.WithOverlay(mustNode(t, "policies: {scheduler: {step: 2}}"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(1, len(over.Warnings())); diff != "" {
		t.Errorf("an overlay's step: %q", over.Warnings())
	}
}

func mustNode(t *testing.T, text string) *yaml.Node {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(text), &n); err != nil {
		t.Fatal(err)
	}
	return &n
}
