package yamltree

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Line finds the line of a field path in the YAML tree; map keys may
// contain dots (model names such as gpt-5.5), so the longest key that matches
// wins. It returns the deepest line it could reach, 0 for none.
func Line(root *yaml.Node, path string) int {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := 0
	for path != "" {
		path = strings.TrimPrefix(path, ".")
		if strings.HasPrefix(path, "[") {
			end := strings.Index(path, "]")
			i, err := strconv.Atoi(path[1:max(end, 1)])
			if end < 0 || err != nil || n.Kind != yaml.SequenceNode || i >= len(n.Content) {
				return line
			}
			n, path = n.Content[i], path[end+1:]
			line = n.Line
			continue
		}
		if n.Kind != yaml.MappingNode {
			return line
		}
		best := -1
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if strings.HasPrefix(path, k) && (len(path) == len(k) || path[len(k)] == '.' || path[len(k)] == '[') {
				if best < 0 || len(k) > len(n.Content[best].Value) {
					best = i
				}
			}
		}
		if best < 0 {
			return line
		}
		line = n.Content[best].Line
		path = path[len(n.Content[best].Value):]
		n = n.Content[best+1]
	}
	return line
}

// Has reports whether the tree sets the field at a dotted path of mapping
// keys (no sequence indexes).
func Has(root *yaml.Node, path string) bool {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, k := range strings.Split(path, ".") {
		if n.Kind != yaml.MappingNode {
			return false
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		if next == nil {
			return false
		}
		n = next
	}
	return true
}
