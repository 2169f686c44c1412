package scenario

import (
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// scenarioDocs are the pages whose tables document the scenario's keys.
var scenarioDocs = []string{"../docs/reference/scenario.md", "../docs/concepts/policies.md"}

// docKey is one key of the schema: its name, its ancestors' names and the
// struct type that holds it (a type used in several places, such as a
// model's keys under models, model_defaults and model_groups, is
// documented once).
type docKey struct {
	path      string
	name      string
	ancestors []string
	holder    reflect.Type
}

// schemaKeys walks the Scenario type's YAML keys (a distribution's keys
// are the form every distribution takes, documented once, not per key) (a list's items and a
// map's values by their fields), to a depth.
func schemaKeys(t reflect.Type, prefix string, anc []string, depth int, out *[]docKey) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || depth > 6 || t == nodeType || t == distType {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		switch {
		case tag == "-" || !f.IsExported():
			continue
		case strings.Contains(opts, "inline"):
			schemaKeys(f.Type, prefix, anc, depth, out) // its keys are its own type's
			continue
		case name == "":
			name = strings.ToLower(f.Name)
		}
		p := strings.TrimPrefix(prefix+"."+name, ".")
		*out = append(*out, docKey{path: p, name: name, ancestors: append([]string(nil), anc...), holder: t})
		schemaKeys(f.Type, p, append(anc, name), depth+1, out)
	}
}

// TestEveryScenarioKeyIsDocumented: every key of the Scenario type has a
// table row in the scenario reference (or the scheduler settings) naming
// it together with one of its ancestors, in the row or the heading above
// the table (or alone, for a top-level key).
func TestEveryScenarioKeyIsDocumented(t *testing.T) {
	var rows []string
	for _, p := range scenarioDocs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		heading := ""
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "#") {
				heading = l
			}
			if strings.HasPrefix(l, "|") {
				rows = append(rows, heading+" "+l)
			}
		}
	}
	var keys []docKey
	schemaKeys(reflect.TypeFor[Scenario](), "", nil, 0, &keys)
	if len(keys) < 100 {
		t.Fatalf("only %d keys: the walk missed the schema", len(keys))
	}
	word := func(w string) *regexp.Regexp {
		return regexp.MustCompile(`(^|[^\w])` + regexp.QuoteMeta(w) + `([^\w]|$)`)
	}
	documented := map[[2]any]bool{} // (holder type, key name)
	var missing []string
	for _, k := range keys {
		name := word(k.name)
		found := false
		for _, r := range rows {
			if !name.MatchString(r) {
				continue
			}
			if len(k.ancestors) == 0 {
				found = true
				break
			}
			for _, a := range k.ancestors {
				if word(a).MatchString(r) {
					found = true
					break
				}
			}
			if found {
				break
			}
		}
		if found {
			documented[[2]any{k.holder, k.name}] = true
		} else {
			missing = append(missing, k.path)
		}
	}
	var still []string
	for _, m := range missing {
		for _, k := range keys {
			if k.path == m && !documented[[2]any{k.holder, k.name}] {
				still = append(still, m)
			}
		}
	}
	missing = still
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("scenario key %s has no row in %s", m, strings.Join(scenarioDocs, " or "))
	}
}
