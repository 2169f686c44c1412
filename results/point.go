package results

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/evalsched/lab/internal/yamltree"
	"go.yaml.in/yaml/v3"
)

// A PointSpec is one configuration that gate, sweep and tune run over
// seeds: a scenario, a policy (or one of the scenario's variants) and an
// overlay of scenario keys merged onto it (sim.Scenario.WithOverlay).
type PointSpec struct {
	ID, Name string
	Scenario string // a file path (resolved) or an embedded name
	Policy   string
	Variant  string
	Overlay  *yaml.Node // a mapping, or nil
	Params   []Param    // the dotted settings that made the overlay (sweep, tune)
	// Baseline: also run the fixed-lane policy on every seed, for the
	// multiplier.
	Baseline bool
}

// Param is one setting of a point: a dotted scenario key and its value.
type Param struct {
	Key   string
	Value *yaml.Node
}

// ResolveScenario reads a scenario reference in a file at path: a file
// relative to that file's directory when one exists there, else as given
// (a path from the working directory, or an embedded scenario's name).
func ResolveScenario(path, ref string) string {
	if ref == "" || filepath.IsAbs(ref) {
		return ref
	}
	if p := filepath.Join(filepath.Dir(path), ref); fileExists(p) {
		return p
	}
	return ref
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// WithParams is base (a mapping or nil, left untouched) with each dotted
// key set: "policies.scheduler.target_depth" = 16 becomes
// {policies: {scheduler: {target_depth: 16}}}.
func WithParams(base *yaml.Node, params []Param) *yaml.Node {
	root := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if base != nil && base.Kind == yaml.MappingNode {
		root = yamltree.Clone(base)
	}
	for _, p := range params {
		m := root
		parts := strings.Split(p.Key, ".")
		for _, k := range parts[:len(parts)-1] {
			m = child(m, k)
		}
		set(m, parts[len(parts)-1], yamltree.Clone(p.Value))
	}
	return root
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
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
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

// decodeStrict decodes YAML data into v, refusing unknown keys, with the
// file's name in errors.
// MaxSeeds is the most seeds one sweep, tune or compare --seeds runs.
const MaxSeeds = 1000

// at is "path:line" for a node of a YAML file's text, reached by mapping
// keys and sequence indexes (at(path, data, "checks", 2, "metric")): the
// line of the deepest of them that is there, so a check on a decoded value
// names its line (just path if the text does not parse).
func at(path string, data []byte, keys ...any) string {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) != 1 {
		return path
	}
	n, line := root.Content[0], 0
	for _, k := range keys {
		var next *yaml.Node
		switch k := k.(type) {
		case string:
			for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == k {
					line, next = n.Content[i].Line, n.Content[i+1]
					break
				}
			}
		case int:
			if n.Kind == yaml.SequenceNode && k >= 0 && k < len(n.Content) {
				next = n.Content[k]
				line = next.Line
			}
		}
		if next == nil {
			break
		}
		n = next
	}
	if line == 0 {
		return path
	}
	return fmt.Sprintf("%s:%d", path, line)
}

func decodeStrict(path string, data []byte, v any) error {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
