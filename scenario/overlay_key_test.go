package scenario

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/evalsched/lab/internal/yamltree"
	"github.com/google/go-cmp/cmp"
)

// TestSplitKey: dotted keys as sweeps and tunes write them, read against
// the scenario's schema. The steps are written out by hand from the
// schema (README "Scenario format").
func TestSplitKey(t *testing.T) {
	key := func(k string) PathStep { return PathStep{Key: k} }
	item := func(list, itemKey, name string) PathStep {
		return PathStep{Key: list, ItemKey: itemKey, Item: name}
	}
	for _, tc := range []struct {
		key  string
		want []PathStep
	}{
		{"duration", []PathStep{key("duration")}},
		{"policies.scheduler.target_depth", []PathStep{key("policies"), key("scheduler"), key("target_depth")}},
		// A model name with dots, in a map of per-model settings.
		{"policies.scheduler.models.gpt-5.5.max_limit", []PathStep{key("policies"), key("scheduler"), key("models"), key("gpt-5.5"), key("max_limit")}},
		{"policies.fixed_lane.lanes.gpt-5.5", []PathStep{key("policies"), key("fixed_lane"), key("lanes"), key("gpt-5.5")}},
		// List items by name (by prefix for model groups).
		{"organisations.acme.tpm", []PathStep{item("organisations", "name", "acme"), key("tpm")}},
		{"models.gpt-5.5.streams", []PathStep{item("models", "name", "gpt-5.5"), key("streams")}},
		{"models.gpt-5.5.jitter.cv", []PathStep{item("models", "name", "gpt-5.5"), key("jitter"), key("cv")}},
		{"keys.evals.pace", []PathStep{item("keys", "name", "evals"), key("pace")}},
		{"model_groups.tail-.streams", []PathStep{item("model_groups", "prefix", "tail-"), key("streams")}},
		{"production.product.retry.base", []PathStep{item("production", "name", "product"), key("retry"), key("base")}},
		// Whole values: a list, a distribution, a map entry.
		{"events", []PathStep{key("events")}},
		{"workload.behaviours.agent.turns", []PathStep{key("workload"), key("behaviours"), key("agent"), key("turns")}},
		{"workload.behaviours.agent.turns.median", []PathStep{key("workload"), key("behaviours"), key("agent"), key("turns"), key("median")}},
		{"workload.tiers.pinned.acct-003/p01", []PathStep{key("workload"), key("tiers"), key("pinned"), key("acct-003/p01")}},
	} {
		t.Run(tc.key, func(t *testing.T) {
			got, err := SplitKey(tc.key)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	for _, tc := range []struct{ key, want string }{
		{"policies.schedular.tick", `not a scenario key: policies has no key "schedular" (have fixed_lane, guards, inspect, scheduler)`},
		{"gateway.retry.bse", `retry has no key "bse" (have base, hold_connection, honour_retry_after, jitter, jitter_add, max, max_attempts, multiplier)`},
		{"organisations[0].tpm", `"organisations[0]": a list item is reached by its name, not an index`},
		{"variants.x", "variants are not set by a key (run one with variant: NAME)"},
	} {
		if _, err := SplitKey(tc.key); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SplitKey(%q): %v, want %q", tc.key, err, tc.want)
		}
	}
	for _, bad := range []string{
		"", "bogus", "policies.schedular.tick", "organisations[0].admission", "organisations.acme.bogus",
		"duration.x", "events.0.at", "gateway.stale.x", "variants.a.policy", "policies.scheduler.", "organisations.",
		"gateway.retry.base.x", "organisations.acme", "models.gpt-5.5",
	} {
		t.Run("refused "+bad, func(t *testing.T) {
			if steps, err := SplitKey(bad); err == nil || !strings.Contains(err.Error(), "not a scenario key") {
				t.Errorf("SplitKey(%q) = %v, %v; want not a scenario key", bad, steps, err)
			}
		})
	}
}

// TestCheckItems: a dotted key may only name list items the scenario has.
func TestCheckItems(t *testing.T) {
	sc, err := LoadScenario("incident-0214")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key, want string // want: "" or a substring of the error
	}{
		{"organisations.acme.tpd", ""},
		{"models.prod-model.streams", ""},
		{"production.product.rate_per_hour", ""},
		{"policies.scheduler.target_depth", ""},
		{"organisations.acmee.tpd", `no item with name "acmee" (have acme)`},
		{"keys.evals.rpm", "the scenario has no keys"},
		{"models.gpt-5.5.streams", `models has no item with name "gpt-5.5"`},
	} {
		t.Run(tc.key, func(t *testing.T) {
			steps, err := SplitKey(tc.key)
			if err != nil {
				t.Fatal(err)
			}
			err = sc.CheckItems(steps)
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("CheckItems(%s) = %v, want %q", tc.key, err, tc.want)
			}
		})
	}
}

// TestSplitKeyEveryPath: every path of the schema, written out by walking
// the Scenario type (a second reading of it), with names that hold dots
// in its maps and named lists, splits back into the steps it was made of.
func TestSplitKeyEveryPath(t *testing.T) {
	type path struct {
		key   string
		steps []PathStep
	}
	var walk func(t reflect.Type, prefix string, steps []PathStep, depth int) []path
	walk = func(t reflect.Type, prefix string, steps []PathStep, depth int) []path {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if depth > 6 || t == nodeType || t == durationType {
			return nil
		}
		var out []path
		join := func(k string) string {
			if prefix == "" {
				return k
			}
			return prefix + "." + k
		}
		switch t.Kind() {
		case reflect.Struct:
			fields := map[string]reflect.Type{}
			yamltree.Fields(t, fields)
			for name, ft := range fields {
				if name == "variants" {
					continue
				}
				st := append(slices.Clone(steps), PathStep{Key: name})
				out = append(out, path{join(name), st})
				if ft.Kind() == reflect.Slice {
					elem := ft.Elem()
					sub := map[string]reflect.Type{}
					if elem.Kind() == reflect.Struct {
						yamltree.Fields(elem, sub)
					}
					itemKey := "name"
					if _, ok := sub["prefix"]; ok {
						itemKey = "prefix"
					} else if _, ok := sub["name"]; !ok {
						continue
					}
					item := append(slices.Clone(steps), PathStep{Key: name, ItemKey: itemKey, Item: "it.1"})
					for _, p := range walk(elem, join(name)+".it.1", item, depth+1) {
						out = append(out, p)
					}
					continue
				}
				out = append(out, walk(ft, join(name), st, depth+1)...)
			}
		case reflect.Map:
			st := append(slices.Clone(steps), PathStep{Key: "k.1"})
			out = append(out, path{join("k.1"), st})
			out = append(out, walk(t.Elem(), join("k.1"), st, depth+1)...)
		}
		return out
	}
	paths := walk(reflect.TypeFor[Scenario](), "", nil, 0)
	t.Logf("%d paths", len(paths))
	if len(paths) < 200 {
		t.Fatalf("only %d paths: the walk missed the schema", len(paths))
	}
	for _, p := range paths {
		got, err := SplitKey(p.key)
		if err != nil {
			t.Errorf("%s: %v", p.key, err)
			continue
		}
		if diff := cmp.Diff(p.steps, got); diff != "" {
			t.Errorf("%s (-want +got)\n%s", p.key, diff)
		}
	}
}

// FuzzSplitKey: no key panics SplitKey, and a key it splits sets a field
// of the schema (its steps joined back give the key).
func FuzzSplitKey(f *testing.F) {
	for _, k := range []string{"policies.scheduler.models.gpt-5.5.max_limit", "organisations.acme.tpm", "model_groups.tail-.streams",
		"workload.tiers.pinned.acct-003/p01", ".", "..", "a..b", "organisations..tpm", "duration.", "keys.k.1.rpm"} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, key string) {
		steps, err := SplitKey(key)
		if err != nil {
			return
		}
		var parts []string
		for _, st := range steps {
			parts = append(parts, st.Key)
			if st.Item != "" {
				parts = append(parts, st.Item)
			}
		}
		if got := strings.Join(parts, "."); got != key {
			t.Errorf("SplitKey(%q) = %v, which joins back to %q", key, steps, got)
		}
	})
}
