package yamltree

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Enum reads a scalar node as one of names, the values of a closed set;
// anything else is an error in the lab's decoding form ("line N, column
// C: unknown "x" (want a or b)"), so the caller's YAML error translation
// names the file, line and field (PathAt: the column tells the field among
// several on one line).
func Enum(node *yaml.Node, names ...string) (string, error) {
	if node.Kind != yaml.ScalarNode || !slices.Contains(names, node.Value) {
		v := node.Value
		if node.Kind != yaml.ScalarNode {
			v = "a " + map[yaml.Kind]string{yaml.MappingNode: "mapping", yaml.SequenceNode: "list"}[node.Kind]
		} else {
			v = fmt.Sprintf("%q", v)
		}
		return "", fmt.Errorf("line %d, column %d: unknown %s (want %s)", node.Line, node.Column, v, orList(names))
	}
	return node.Value, nil
}

// orList is "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// EnumOf is Enum over a typed closed set: the value of kinds a scalar node
// names, or an error listing them.
func EnumOf[T ~string](node *yaml.Node, kinds []T) (T, error) {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	v, err := Enum(node, names...)
	return T(v), err
}
