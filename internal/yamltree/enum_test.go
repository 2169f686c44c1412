package yamltree

import (
	"regexp"
	"strconv"
	"testing"

	"go.yaml.in/yaml/v3"
)

type mode string

func (m *mode) UnmarshalYAML(n *yaml.Node) error {
	v, err := Enum(n, "fast", "slow")
	*m = mode(v)
	return err
}

// TestEnumNamesTheField: a value outside the set is refused with the
// line and column of the value, and PathAt finds the field there — in
// block style, in a flow mapping among other keys on the same line, and in
// a list.
func TestEnumNamesTheField(t *testing.T) {
	type item struct {
		Name string `yaml:"name"`
		Mode mode   `yaml:"mode"`
	}
	type doc struct {
		Top   mode   `yaml:"top"`
		Items []item `yaml:"items"`
	}
	at := regexp.MustCompile(`^line (\d+), column (\d+): (.*)$`)
	for _, tc := range []struct{ text, path, msg string }{
		{"top: quick\n", "top", `unknown "quick" (want fast or slow)`},
		{"top: fast\nitems:\n  - {name: a, mode: slow}\n  - {name: b, mode: warp}\n", "items[1].mode", `unknown "warp" (want fast or slow)`},
		{"items:\n  - name: a\n    mode: [x]\n", "items[0].mode", `unknown a list (want fast or slow)`},
	} {
		var d doc
		err := yaml.Unmarshal([]byte(tc.text), &d)
		if err == nil {
			t.Fatalf("%q: accepted", tc.text)
		}
		var te *yaml.TypeError
		msg := err.Error()
		if ok := asTypeError(err, &te); ok {
			msg = te.Errors[0]
		}
		m := at.FindStringSubmatch(msg)
		if m == nil {
			t.Fatalf("%q: error %q has no line and column", tc.text, msg)
		}
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		var root yaml.Node
		if err := yaml.Unmarshal([]byte(tc.text), &root); err != nil {
			t.Fatal(err)
		}
		if got := PathAt(&root, line, col); got != tc.path || m[3] != tc.msg {
			t.Errorf("%q: path %q, message %q; want %q, %q", tc.text, got, m[3], tc.path, tc.msg)
		}
	}
}

func asTypeError(err error, te **yaml.TypeError) bool {
	t, ok := err.(*yaml.TypeError)
	*te = t
	return ok
}
