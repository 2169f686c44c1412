package yamltree

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/evalsched/lab/internal/field"
	"go.yaml.in/yaml/v3"
)

// Fields maps the YAML keys of struct type t (inline structs included) to
// their types, as the YAML library decodes them.
func Fields(t reflect.Type, out map[string]reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		switch {
		case tag == "-" || !f.IsExported():
		case strings.Contains(opts, "inline") && f.Type.Kind() == reflect.Map:
			// an inline map takes the keys no field names: its owner checks them
		case strings.Contains(opts, "inline"):
			Fields(f.Type, out)
		case name != "":
			out[name] = f.Type
		default:
			out[strings.ToLower(f.Name)] = f.Type
		}
	}
}

// PathAtLine is the field path ("checks[2].metric") of the deepest key on
// line, or of the key named name there if name is not empty (a flow
// mapping holds several keys on one line); "" if none.
func PathAtLine(n *yaml.Node, line int, name string) string {
	return walkPath(n, true, func(k, _ *yaml.Node) bool { return k.Line == line && (name == "" || k.Value == name) })
}

// PathAt is the field path (as PathAtLine writes it) of the value node
// that starts at line and column, "" if none: the field a decoding error at
// that position is about, even among several on one line.
func PathAt(n *yaml.Node, line, column int) string {
	return walkPath(n, false, func(_, v *yaml.Node) bool { return v.Line == line && v.Column == column })
}

// walkPath is the field path of the first mapping entry match accepts,
// depth first. With deepest, an entry is tried after the entries inside
// its value (the innermost key wins); else before them (a mapping value
// starts where its first key does, and the outer entry is the one meant).
func walkPath(n *yaml.Node, deepest bool, match func(k, v *yaml.Node) bool) string {
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if !deepest && match(k, v) {
				return k.Value
			}
			if sub := walkPath(v, deepest, match); sub != "" {
				return field.Join(k.Value, sub)
			}
			if deepest && match(k, v) {
				return k.Value
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if sub := walkPath(c, deepest, match); sub != "" {
				return field.Join(fmt.Sprintf("[%d]", i), sub)
			}
		}
	}
	return ""
}
