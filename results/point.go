package results

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/evalsched/lab/internal/field"
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
	Params   []Param    // the grid's or tune's parameters of the point (the CSVs' columns)
	// Settings are the dotted settings the overlay was built from: the
	// parameters, or a list point's overlay flattened. Each is checked
	// against the scenario (a list item it names must exist).
	Settings []Param
	// Baseline: also run the fixed-lane policy on every seed, for the
	// multiplier.
	Baseline bool
}

// Param is one setting of a point: a dotted scenario key and its value.
type Param struct {
	Key   string
	Value *yaml.Node
	// Where names the file, line and field that set it, for errors
	// ("sweep.yaml:7: grid.organisations.acme.tpm"); empty if unknown.
	Where string
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

// A PathStep is one step of a dotted scenario key: a mapping's Key, or,
// with Item set, the item of the list at Key whose ItemKey ("name", or
// "prefix" for model groups) is Item.
type PathStep struct{ Key, ItemKey, Item string }

// A KeySplitter splits a dotted scenario key into its steps, reading the
// scenario's schema (sim.SplitKey): "policies.scheduler.models.gpt-5.5.max_limit"
// is policies, scheduler, models, gpt-5.5, max_limit; "organisations.acme.tpm"
// is the item named acme of organisations, then tpm.
type KeySplitter func(key string) ([]PathStep, error)

// WithParams is base (a mapping or nil, left untouched) with each dotted
// key set (an error names the param's Where, else its key): "policies.scheduler.target_depth" = 16 becomes
// {policies: {scheduler: {target_depth: 16}}}, "organisations.acme.tpm" =
// 5e6 becomes {organisations: [{name: acme, tpm: 5e6}]} (an overlay merges
// a list item by item on their names).
func WithParams(base *yaml.Node, params []Param, split KeySplitter) (*yaml.Node, error) {
	root := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if base != nil && base.Kind == yaml.MappingNode {
		root = yamltree.Clone(base)
	}
	for _, p := range params {
		where := cmp.Or(p.Where, p.Key)
		steps, err := split(p.Key)
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

// MaxSeeds is the most seeds one sweep, tune or compare --seeds runs.
const MaxSeeds = 1000

// seedRange is the n seeds from first (at least 1) a sweep or tune file asks
// for, refused at the line of its seeds key when n is not in 1..MaxSeeds.
func seedRange(path string, data []byte, n int, first uint64) ([]uint64, error) {
	if n < 1 || n > MaxSeeds {
		return nil, fmt.Errorf("%s: seeds: must be in 1..%d, got %d", at(path, data, "seeds"), MaxSeeds, n)
	}
	first = max(1, first)
	if first > math.MaxUint64-uint64(n-1) {
		return nil, fmt.Errorf("%s: first_seed: %d with %d seeds: the last seed would pass %d", at(path, data, "first_seed"), first, n, uint64(math.MaxUint64))
	}
	seeds := make([]uint64, n)
	for k := range seeds {
		seeds[k] = first + uint64(k)
	}
	return seeds, nil
}

// at is "path:line" for the field (a path such as "checks[2].metric") of a
// YAML file's text, the deepest line of it that is there (just path if
// none), so a check on a decoded value names its line.
func at(path string, data []byte, field string) string {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) == nil {
		if line := yamltree.Line(&root, field); line > 0 {
			return fmt.Sprintf("%s:%d", path, line)
		}
	}
	return path
}

// decodeStrict decodes YAML data into v, refusing unknown keys, with the
// file's name in errors.
func decodeStrict(path string, data []byte, v any) error {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			return typeError(path, data, reflect.TypeOf(v).Elem(), te.Errors[0])
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// yamlMessage is the YAML library's "line N: ..." message; notFound its
// message for an unknown key.
var (
	yamlMessage = regexp.MustCompile(`^line (\d+): (.*)$`)
	notFound    = regexp.MustCompile(`^field (\S+) not found in type \S+$`)
)

// typeError turns the YAML library's first decoding message into a field
// error at the file, line and field path ("gate.yaml:9: checks[0].lane:
// unknown field (have ...)"), instead of its text naming Go types.
func typeError(path string, data []byte, t reflect.Type, msg string) error {
	m := yamlMessage.FindStringSubmatch(msg)
	if m == nil {
		return fmt.Errorf("%s: %s", path, msg)
	}
	line, _ := strconv.Atoi(m[1])
	var root yaml.Node
	_ = yaml.Unmarshal(data, &root) // it decoded up to here
	fe := &field.Error{File: path, Line: line, Msg: m[2]}
	if k := notFound.FindStringSubmatch(m[2]); k != nil {
		fe.Path = yamltree.PathAtLine(&root, line, k[1])
		fe.Msg = "unknown field"
		if have := fieldsAt(t, fe.Path); len(have) > 0 {
			fe.Msg += " (have " + strings.Join(have, ", ") + ")"
		}
	} else {
		fe.Path = yamltree.PathAtLine(&root, line, "")
	}
	return fe
}

// fieldsAt is the keys of the struct that holds the last field of path
// (a path such as "checks[0].lane") below type t, sorted; nil if the path
// does not lead through structs and lists.
func fieldsAt(t reflect.Type, path string) []string {
	parts := strings.Split(path, ".")
	for i, part := range parts {
		name, _, indexed := strings.Cut(part, "[")
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return nil
		}
		fields := map[string]reflect.Type{}
		yamltree.Fields(t, fields)
		if i == len(parts)-1 {
			return slices.Sorted(maps.Keys(fields))
		}
		if t = fields[name]; t == nil {
			return nil
		}
		if indexed {
			for t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
			if t.Kind() != reflect.Slice {
				return nil
			}
			t = t.Elem()
		}
	}
	return nil
}
