package scenario

import (
	"cmp"
	"fmt"
	"strconv"

	"github.com/evalsched/lab/internal/yamltree"
	"go.yaml.in/yaml/v3"
)

// A PathStep is one step of a dotted scenario key: a mapping's Key, or,
// with Item set, the item of the list at Key whose ItemKey ("name", or
// "prefix" for model groups) is Item.
type PathStep struct{ Key, ItemKey, Item string }

// WithParams is base (a mapping or nil, left untouched) with each dotted
// key set (an error names the param's Where, else its key): "policies.scheduler.target_depth" = 16 becomes
// {policies: {scheduler: {target_depth: 16}}}, "organisations.acme.tpm" =
// 5e6 becomes {organisations: [{name: acme, tpm: 5e6}]} (an overlay merges
// a list item by item on their names).
func WithParams(base *yaml.Node, params []Param) (*yaml.Node, error) {
	root := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if base != nil && base.Kind == yaml.MappingNode {
		root = yamltree.Clone(base)
	}
	for _, p := range params {
		where := cmp.Or(p.Where, p.Key)
		steps, err := SplitKey(p.Key)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		m := root
		for _, st := range steps[:len(steps)-1] {
			m = step(m, st)
		}
		last := steps[len(steps)-1]
		if last.Item != "" {
			return nil, fmt.Errorf("%s: a key sets a field of a list item, not the item", where)
		}
		set(m, last.Key, yamltree.Clone(p.Value))
	}
	return root, nil
}

// step is the mapping st leads to from m, made if missing: m's key, or the
// named item of m's list.
func step(m *yaml.Node, st PathStep) *yaml.Node {
	if st.Item == "" {
		return child(m, st.Key)
	}
	var seq *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == st.Key && m.Content[i+1].Kind == yaml.SequenceNode {
			seq = m.Content[i+1]
		}
	}
	if seq == nil {
		seq = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		set(m, st.Key, seq)
	}
	for _, item := range seq.Content {
		if item.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(item.Content); i += 2 {
				if item.Content[i].Value == st.ItemKey && item.Content[i+1].Value == st.Item {
					return item
				}
			}
		}
	}
	item := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	set(item, st.ItemKey, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: st.Item})
	seq.Content = append(seq.Content, item)
	return item
}

func child(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i+1].Kind == yaml.MappingNode {
			return m.Content[i+1]
		}
	}
	c := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	set(m, key, c)
	return c
}

func set(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	// The key takes the value's line: an error on the value is reported
	// at the line of the file that set it (a sweep's grid, a tune param).
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Line: v.Line}, v)
}

// Scalar is a YAML scalar node holding v (a number, or text such as "10s").
func Scalar(v string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: v, Tag: "!!str"}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		n.Tag = "!!float"
		if _, err := strconv.ParseInt(v, 10, 64); err == nil {
			n.Tag = "!!int"
		}
	}
	return n
}

// Param is one setting of a point: a dotted scenario key and its value.
type Param struct {
	Key   string
	Value *yaml.Node
	// Where names the file, line and field that set it, for errors
	// ("sweep.yaml:7: grid.organisations.acme.tpm"); empty if unknown.
	Where string
}
