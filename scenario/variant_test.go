package scenario

import (
	"strconv"
	"strings"
	"testing"

	"github.com/evalsched/lab/scenario/scenariotest"
	"github.com/google/go-cmp/cmp"
)

func variantScenario(t *testing.T, extra string) *Scenario {
	t.Helper()
	sc, err := ParseScenario("v.yaml", []byte(scenariotest.Valid+extra))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestVariantNamesAndPolicies(t *testing.T) {
	sc := variantScenario(t, scenariotest.VariantsBlock)
	if diff := cmp.Diff([]string{"old", "new", "deep"}, sc.VariantNames()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	for name, want := range map[string]string{"old": "fixed-lane", "new": "scheduler", "deep": "scheduler"} {
		v, err := sc.Variant(name)
		if err != nil {
			t.Fatal(err)
		}
		if v.Policy != want || v.Name != name {
			t.Errorf("variant %s: policy %q, want %q", name, v.Policy, want)
		}
	}
}

// TestVariantMerge checks the merge rules against the base, field by field:
// what the overlay names changes, everything else stays as in the base.
func TestVariantMerge(t *testing.T) {
	base := variantScenario(t, scenariotest.VariantsBlock)
	v, err := base.Variant("deep")
	if err != nil {
		t.Fatal(err)
	}
	got := v.Scenario
	if diff := cmp.Diff([]string{"a", "b", "c"}, got.Catalogue()); diff != "" {
		t.Errorf("catalogue (-want +got):\n%s", diff)
	}
	a := got.ModelConfigs()[0]
	if a.Streams != 3 || a.Org != "o" || a.DecodeRate != 50 {
		t.Errorf("model a: streams %d org %q decode %g; want the overlay's 3 streams, the base's org o and decode 50", a.Streams, a.Org, a.DecodeRate)
	}
	if b := got.ModelConfigs()[1]; b != base.ModelConfigs()[1] {
		t.Errorf("model b changed: %+v, base %+v", b, base.ModelConfigs()[1])
	}
	if got.Policies.Scheduler.TargetDepth != 40 {
		t.Errorf("target_depth %d, want 40", got.Policies.Scheduler.TargetDepth)
	}
	if diff := cmp.Diff([]string{"b"}, got.Workload.Models.Hot); diff != "" {
		t.Errorf("hot models (-want +got):\n%s", diff)
	}
	if got.Workload.Models.HotShare != base.Workload.Models.HotShare || got.Duration != base.Duration {
		t.Error("keys the overlay does not name changed")
	}
	// The base is untouched by building a variant.
	if base.ModelConfigs()[0].Streams != 10 || len(base.Catalogue()) != 2 {
		t.Error("building a variant changed the base scenario")
	}
}

// TestVariantErrors: a bad overlay is refused when the file is read (every
// variant is built then, selected or not), naming the file, the line of the
// key at fault (found by searching the text), the field and the variant; a
// variant the file lacks is refused when it is asked for.
func TestVariantErrors(t *testing.T) {
	cases := []struct {
		name, block, variant, marker, want string
	}{
		{"unknown key", "variants:\n  x:\n    policies: {scheduler: {bogus_knob: 3}}\n", "x", "bogus_knob", "bogus_knob"},
		{"bad value", "variants:\n  x:\n    models: [{name: a, streams: -4}]\n", "x", "streams: -4", "models[0].streams"},
		{"unknown policy", "variants:\n  x: {policy: fifo}\n", "x", "policy: fifo", "variants.x.policy"},
		{"name", "variants:\n  x: {name: other}\n", "x", "name: other", "variants.x.name: cannot be set"},
		{"not a mapping", "variants:\n  x: 3\n", "x", "x: 3", "variants.x: must be a mapping"},
		{"second variant, never selected", "variants:\n  x: {}\n  y:\n    gateway: {retry: {bogus: 1}}\n", "y", "bogus: 1", "bogus"},
		{"unknown variant", "variants:\n  x: {}\n", "y", "", `no variant "y" (have x)`},
		// Lists merge on names: a misspelt one adds an item that no model uses.
		{"misspelt organisation", "variants:\n  x:\n    organisations: [{name: oo, rpm: 5}]\n", "x", "name: oo", `organisations[1]: adds organisation "oo", which no model uses: to change one, give its name (have o)`},
		{"unused key", "variants:\n  x:\n    keys: [{name: spare, rpm: 5}]\n", "x", "name: spare", `keys[0]: adds key "spare", which no model uses: to change one, give its name (have none)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text := scenariotest.Valid + tc.block
			sc, err := ParseScenario("v.yaml", []byte(text))
			if tc.marker == "" {
				if err != nil {
					t.Fatal(err)
				}
				_, err = sc.Variant(tc.variant)
			} else if err == nil {
				t.Fatal("a scenario with a broken variant was read")
			} else if !strings.Contains(err.Error(), `variant "`+tc.variant+`"`) {
				t.Errorf("error %q does not name the variant", err)
			}
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) || !strings.HasPrefix(msg, "v.yaml") {
				t.Errorf("error %q lacks %q", msg, tc.want)
			}
			if tc.marker == "" {
				return
			}
			line := 0
			for i, l := range strings.Split(text, "\n") {
				if strings.Contains(l, tc.marker) {
					line = i + 1
				}
			}
			// The decoder's own messages say "FILE: line N: ..." (as for the
			// base scenario); validation says "FILE:N: ...".
			want := "v.yaml:" + strconv.Itoa(line) + ":"
			if !strings.HasPrefix(msg, want) && !strings.HasPrefix(msg, "v.yaml: line "+strconv.Itoa(line)+":") {
				t.Errorf("error %q does not start with %q", msg, want)
			}
		})
	}
}

// TestVariantAddsUsedItems: a variant may add an organisation or a key that
// a model uses (the separate-org and virtual-key remedies do).
func TestVariantAddsUsedItems(t *testing.T) {
	sc := variantScenario(t, "variants:\n  sep:\n    organisations: [{name: evals, rpm: 5}]\n    keys: [{name: k, tpm: 9}]\n    models: [{name: a, eval_org: evals, eval_key: k}]\n")
	v, err := sc.Variant("sep")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(v.Scenario.Organisations) + len(v.Scenario.Keys); got != 3 {
		t.Errorf("%d organisations and keys, want 3 (o, evals, k)", got)
	}
}
