package yamltree

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/evalsched/lab/internal/enum"
)

// Enum reads a scalar node as one of names, the values of a closed set;
// anything else is an *At ("line N, column C: unknown "x" (want a or
// b)"), so Err names the file, line and field (the column tells the field
// among several on one line).
func Enum(node *yaml.Node, names ...string) (string, error) {
	return EnumOf(node, names)
}

// EnumOf is Enum over a typed closed set: the member a scalar node names.
func EnumOf[T ~string](node *yaml.Node, set []T) (T, error) {
	if node.Kind == yaml.ScalarNode {
		if v, ok := enum.Of(set, node.Value); ok {
			return v, nil
		}
	}
	v := fmt.Sprintf("%q", node.Value)
	if node.Kind != yaml.ScalarNode {
		v = "a " + map[yaml.Kind]string{yaml.MappingNode: "mapping", yaml.SequenceNode: "list"}[node.Kind]
	}
	return "", &At{Line: node.Line, Column: node.Column, Msg: fmt.Sprintf("unknown %s (want %s)", v, enum.List(set))}
}
