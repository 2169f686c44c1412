package yamltree

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestClone: the copy encodes to the same YAML, and changing it (a value,
// a key added deep inside) leaves the original as it was.
func TestClone(t *testing.T) {
	src := "a: 1\nb:\n  c: [1, 2]\n  d: {e: x}\n"
	n := parse(t, src)
	c := Clone(n)
	before, _ := yaml.Marshal(n)
	if got, _ := yaml.Marshal(c); string(got) != string(before) {
		t.Fatalf("clone encodes as %q, want %q", got, before)
	}
	c.Content[0].Content[1].Value = "2"
	d := c.Content[0].Content[3].Content[3]
	d.Content = append(d.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "f"}, &yaml.Node{Kind: yaml.ScalarNode, Value: "y"})
	if after, _ := yaml.Marshal(n); string(after) != string(before) {
		t.Errorf("changing the clone changed the original:\n%s\nwant\n%s", after, before)
	}
}

// parse is text's YAML tree (a document node).
func parse(t *testing.T, text string) *yaml.Node {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(text), &n); err != nil {
		t.Fatal(err)
	}
	return &n
}
