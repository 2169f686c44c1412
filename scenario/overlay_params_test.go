package scenario

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// TestWithParams: dotted settings become one overlay: mapping keys nest,
// a list item is found (in the base overlay) or added by its name, and
// settings of one item gather in it. The want texts are the overlays
// written by hand; the keys are read against the schema (SplitKey).
func TestWithParams(t *testing.T) {
	node := func(text string) *yaml.Node {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(text), &n); err != nil {
			t.Fatal(err)
		}
		return n.Content[0]
	}
	text := func(n *yaml.Node) string {
		var b strings.Builder
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(n); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name, base string
		params     [][2]string // key, value
		want, err  string
	}{
		{"nested keys", "", [][2]string{{"policies.scheduler.tick", "5s"}, {"policies.scheduler.models.gpt-5.5.max_limit", "12"}},
			"policies:\n  scheduler:\n    tick: 5s\n    models:\n      gpt-5.5:\n        max_limit: 12\n", ""},
		{"items gather by name", "", [][2]string{{"organisations.acme.tpm", "5000000"}, {"organisations.other.tpm", "7"}, {"organisations.acme.rpm", "60"}, {"model_groups.tail-.streams", "8"}},
			"organisations:\n  - name: acme\n    tpm: 5000000\n    rpm: 60\n  - name: other\n    tpm: 7\nmodel_groups:\n  - prefix: tail-\n    streams: 8\n", ""},
		{"an item of the base overlay", "duration: 1h\norganisations:\n  - name: acme\n    rpm: 5\n", [][2]string{{"organisations.acme.tpm", "9"}},
			"duration: 1h\norganisations:\n  - name: acme\n    rpm: 5\n    tpm: 9\n", ""},
		{"the base overlay is left untouched", "organisations:\n  - name: acme\n    rpm: 5\n", nil,
			"organisations:\n  - name: acme\n    rpm: 5\n", ""},
		{"not a key", "", [][2]string{{"policies.schedular.tick", "5s"}}, "", "policies.schedular.tick: not a scenario key"},
		{"a whole item", "", [][2]string{{"organisations.acme", "5"}}, "", "organisations.acme: not a scenario key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var base *yaml.Node
			if tc.base != "" {
				base = node(tc.base)
			}
			before := ""
			if base != nil {
				before = text(base)
			}
			var params []Param
			for _, p := range tc.params {
				params = append(params, Param{Key: p[0], Value: node(p[1])})
			}
			got, err := WithParams(base, params)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, text(got)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			if base != nil && text(base) != before {
				t.Errorf("the base overlay changed: %s", text(base))
			}
		})
	}
}
