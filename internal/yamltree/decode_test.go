package yamltree

import (
	"errors"
	"testing"

	"github.com/evalsched/lab/internal/field"
	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

type decItem struct {
	Name string `yaml:"name"`
	Mode mode   `yaml:"mode"`
	Size int    `yaml:"size"`
}

type decDoc struct {
	Top   mode      `yaml:"top"`
	Items []decItem `yaml:"items"`
	Inner struct {
		A int `yaml:"a"`
		B int
	} `yaml:"inner"`
}

// refusal is a value refused by its own decoder with a line and no column.
type refusal struct{}

func (*refusal) UnmarshalYAML(n *yaml.Node) error {
	return &At{Line: n.Line, Msg: "refused"}
}

// TestParse: one document, or ErrEmpty, or an error at the line where a
// second document starts or of the syntax error.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       error // nil: parsed
	}{
		{"one", "a: 1\n", nil},
		{"nothing", "", ErrEmpty},
		{"comments only", "# a\n# b\n", ErrEmpty},
		{"second document", "a: 1\n---\nb: 2\n", &field.Error{Line: 2 /* its "---" */, Msg: "a second YAML document (---): a thing is one document"}},
		{"syntax", "a: 1\nb: [1, 2\nc: 3\n", &field.Error{Line: 2, Msg: "did not find expected ',' or ']'"}},
		{"syntax in the second", "a: 1\n---\nb: [1\n", &field.Error{Line: 3, Msg: "did not find expected ',' or ']'"}},
		// The library names no line for a fault on the first, and the
		// line where the mapping opened for a stray item deep inside it.
		{"tab on the first line", "\t bad: [\n", &field.Error{Line: 1, Msg: "found character that cannot start any token"}},
		{"stray item", "# c\na: 1\nb:\n  c: 2\n  d: 3\ne: {x: 1}\n  - {y: 2}\nf: 5\n", &field.Error{Line: 7, Msg: "did not find expected key (in the collection that opens at line 2)"}},
		{"stray item in the second", "a: 1\n---\nb: {x: 1}\n  - {y: 2}\n", &field.Error{Line: 4, Msg: "did not find expected key (in the collection that opens at line 3)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, err := Parse([]byte(tc.text), "a thing")
			switch {
			case tc.want == ErrEmpty:
				if !errors.Is(err, ErrEmpty) {
					t.Fatalf("error %v, want ErrEmpty", err)
				}
			case tc.want != nil:
				if diff := cmp.Diff(tc.want, err); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
			case err != nil:
				t.Fatal(err)
			case root.Kind != yaml.DocumentNode || len(root.Content) != 1:
				t.Errorf("tree %v, want a document", root)
			}
		})
	}
}

// TestDecode: each refusal of a strict decode is at the line and path of
// the field at fault, in block and flow style, with the keys an unknown
// one could have been.
func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       *field.Error
	}{
		{"unknown top key", "top: fast\ntopp: 1\n",
			&field.Error{Line: 2, Path: "topp", Msg: "unknown field (have inner, items, top)"}},
		{"unknown key in a nested mapping", "inner:\n  a: 1\n  c: 2\n",
			&field.Error{Line: 3, Path: "inner.c", Msg: "unknown field (have a, b)"}},
		{"unknown key in a flow list item", "items:\n  - {name: a}\n  - {name: b, sise: 3}\n",
			&field.Error{Line: 3, Path: "items[1].sise", Msg: "unknown field (have mode, name, size)"}},
		{"enum among keys on one line", "items:\n  - {name: a, mode: warp, size: 1}\n",
			&field.Error{Line: 2, Path: "items[0].mode", Msg: `unknown "warp" (want fast or slow)`}},
		{"wrong type", "inner:\n  a: [1]\n",
			&field.Error{Line: 2, Path: "inner.a", Msg: "cannot unmarshal !!seq into int"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.text)
			root, err := Parse(data, "a thing")
			if err != nil {
				t.Fatal(err)
			}
			var d decDoc
			if diff := cmp.Diff(error(tc.want), Decode(data, root, &d)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestErrWithoutColumn: an At with no column is placed at the deepest key
// on its line; without a tree, at no path.
func TestErrWithoutColumn(t *testing.T) {
	data := []byte("x: 1\nr:\n  deep: {v: 1}\n")
	root, err := Parse(data, "a thing")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		X int `yaml:"x"`
		R struct {
			Deep refusal `yaml:"deep"`
		} `yaml:"r"`
	}
	if diff := cmp.Diff(error(&field.Error{Line: 3, Path: "r.deep.v", Msg: "refused"}), Decode(data, root, &d)); diff != "" {
		t.Errorf("with a tree (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(error(&field.Error{Line: 3, Msg: "refused"}), Err(nil, nil, root.Decode(&d))); diff != "" {
		t.Errorf("without a tree (-want +got):\n%s", diff)
	}
}
