package yamltree

import "go.yaml.in/yaml/v3"

// Clone is a deep copy of n.
func Clone(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = Clone(k)
	}
	return &c
}
