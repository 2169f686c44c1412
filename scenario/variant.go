package scenario

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/internal/yamltree"
	"go.yaml.in/yaml/v3"
)

// A Variant is a named way to run a scenario: a policy and a partial overlay
// of scenario keys merged onto the base. Variants of one scenario run on the
// identical job and production streams (same seed) unless the overlay
// changes the workload or production itself.
//
// In a scenario file:
//
//	variants:
//	  old: {policy: fixed-lane}
//	  new: {policy: scheduler}
//	  deep-queue:
//	    policy: scheduler            # default: scheduler
//	    policies: {scheduler: {target_depth: 40}}
//	    models: [{name: gpt-5.5, streams: 450}]
//
// Merging: mappings merge key by key, recursively; a sequence whose items
// all carry a `name` (models, organisations, production, model_groups by
// prefix) merges item by item on that name, appending new names; any other
// sequence or scalar is replaced. `name` and `variants` cannot be overlaid.
type Variant struct {
	Name     string
	Policy   string
	Scenario *Scenario
}

// DefaultVariantPolicy is the policy of a variant that names none.
const DefaultVariantPolicy = "scheduler"

// VariantNames lists the scenario's variants in file order.
func (s *Scenario) VariantNames() []string {
	n := s.variantsNode()
	if n == nil {
		return nil
	}
	var names []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		names = append(names, n.Content[i].Value)
	}
	return names
}

func (s *Scenario) variantsNode() *yaml.Node {
	n := s.section("variants")
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	return n
}

// Variant builds the named variant: the base document with the variant's
// overlay merged in, decoded strictly and validated like any scenario, with
// errors naming the line of the key at fault (in the base or the overlay).
func (s *Scenario) Variant(name string) (*Variant, error) {
	vs := s.variantsNode()
	var overlay *yaml.Node
	if vs != nil {
		for i := 0; i+1 < len(vs.Content); i += 2 {
			if vs.Content[i].Value == name {
				overlay = vs.Content[i+1]
			}
		}
	}
	if overlay == nil {
		have := "none"
		if names := s.VariantNames(); len(names) > 0 {
			have = strings.Join(names, ", ")
		}
		return nil, fmt.Errorf("%s: no variant %q (have %s)", s.file, name, have)
	}
	path := "variants." + name
	if overlay.Kind != yaml.MappingNode {
		return nil, field.In(s.file, overlay.Line, field.Errorf(path, "must be a mapping of scenario keys"))
	}
	v := &Variant{Name: name, Policy: DefaultVariantPolicy}
	overlay = yamltree.Clone(overlay)
	for i := 0; i+1 < len(overlay.Content); i += 2 {
		k, val := overlay.Content[i], overlay.Content[i+1]
		switch k.Value {
		case "policy":
			if val.Kind != yaml.ScalarNode || !IsPolicy(val.Value) {
				return nil, field.In(s.file, val.Line, field.Errorf(path+".policy", "must be one of %s", strings.Join(PolicyNames(), ", ")))
			}
			v.Policy = val.Value
		case "name", "variants":
			return nil, field.In(s.file, k.Line, field.Errorf(path+"."+k.Value, "cannot be set in a variant"))
		default:
			continue
		}
		overlay.Content = slices.Delete(overlay.Content, i, i+2)
		i -= 2
	}
	sc, err := s.WithOverlay(overlay)
	if err != nil {
		return nil, err
	}
	v.Scenario = sc
	return v, nil
}

// WithOverlay is the scenario with overlay (a YAML mapping of scenario keys)
// merged onto it by the rules of a variant, without its variants, decoded
// and validated like any scenario. Sweeps, gates and tuning make their
// points with it.
func (s *Scenario) WithOverlay(overlay *yaml.Node) (*Scenario, error) {
	if overlay.Kind == yaml.DocumentNode && len(overlay.Content) == 1 {
		overlay = overlay.Content[0]
	}
	if overlay.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: an overlay must be a mapping of scenario keys", s.file)
	}
	root := yamltree.Clone(s.root)
	doc := root
	if doc.Kind == yaml.DocumentNode {
		doc = doc.Content[0]
	}
	removeKey(doc, "variants")
	mergeNode(doc, yamltree.Clone(overlay))
	merged, err := decodeScenarioNode(s.file, root)
	if err != nil {
		return nil, err
	}
	if err := s.unusedAdditions(merged, overlay); err != nil {
		return nil, err
	}
	return merged, nil
}

// unusedAdditions refuses an organisation or a key that the overlay adds
// and no model uses (as org or eval_org, or as eval_key): lists merge item
// by item on their names, so a misspelt name adds an item that changes
// nothing instead of changing the one meant.
func (s *Scenario) unusedAdditions(merged *Scenario, overlay *yaml.Node) error {
	used := map[string]bool{}
	for _, m := range merged.catalogue {
		used["organisations/"+m.Org], used["organisations/"+m.EvalOrg], used["keys/"+m.EvalKey] = true, true, true
	}
	for _, l := range []struct{ list, what string }{{"organisations", "organisation"}, {"keys", "key"}} {
		base := itemNames(s.root, l.list, "name")
		for i, name := range itemNames(merged.root, l.list, "name") {
			if slices.Contains(base, name) || used[l.list+"/"+name] {
				continue
			}
			line := 0
			if item := namedItem(overlay, l.list, "name", name); item != nil {
				line = item.Line
			}
			return field.In(s.file, line, field.Errorf(fmt.Sprintf("%s[%d]", l.list, i),
				"adds %s %q, which no model uses: to change one, give its name (have %s)", l.what, name, cmp.Or(strings.Join(base, ", "), "none")))
		}
	}
	return nil
}

// decodeScenarioNode checks a YAML tree against the Scenario type (the same
// pre-pass as a file gets, with the tree's own line numbers), decodes and
// builds it.
func decodeScenarioNode(file string, root *yaml.Node) (*Scenario, error) {
	if err := checkDocument(root); err != nil {
		return nil, field.In(file, 0, err)
	}
	s := &Scenario{file: file, root: root}
	if err := root.Decode(s); err != nil {
		return nil, field.In(file, 0, yamltree.Err(root, reflect.TypeFor[Scenario](), err))
	}
	if err := s.build(); err != nil {
		return nil, s.locate(err)
	}
	return s, nil
}

func removeKey(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = slices.Delete(m.Content, i, i+2)
			return
		}
	}
}

// mergeNode merges overlay into base in place (see Variant for the rules).
func mergeNode(base, overlay *yaml.Node) {
	for i := 0; i+1 < len(overlay.Content); i += 2 {
		k, v := overlay.Content[i], overlay.Content[i+1]
		j := keyIndex(base, k.Value)
		switch {
		case j < 0:
			base.Content = append(base.Content, k, v)
		case v.Kind == yaml.MappingNode && base.Content[j+1].Kind == yaml.MappingNode:
			mergeNode(base.Content[j+1], v)
		case v.Kind == yaml.SequenceNode && base.Content[j+1].Kind == yaml.SequenceNode && keyed(v) && keyed(base.Content[j+1]):
			mergeKeyed(base.Content[j+1], v)
		default:
			// The overlay's key too, so errors name the overlay's line.
			base.Content[j], base.Content[j+1] = k, v
		}
	}
}

func keyIndex(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// itemKeys are the keys that identify a sequence item for merging.
var itemKeys = []string{"name", "prefix"}

// itemKey is the identifying key and value of a sequence item, if any.
func itemKey(item *yaml.Node) (string, string) {
	if item.Kind != yaml.MappingNode {
		return "", ""
	}
	for _, k := range itemKeys {
		if j := keyIndex(item, k); j >= 0 && item.Content[j+1].Kind == yaml.ScalarNode {
			return k, item.Content[j+1].Value
		}
	}
	return "", ""
}

// listAt is the items of the list at key of mapping m (a document's
// mapping), nil if there is none.
func listAt(m *yaml.Node, key string) []*yaml.Node {
	if m.Kind == yaml.DocumentNode && len(m.Content) > 0 {
		m = m.Content[0]
	}
	if j := keyIndex(m, key); j >= 0 && m.Content[j+1].Kind == yaml.SequenceNode {
		return m.Content[j+1].Content
	}
	return nil
}

// itemNames is the names (by identifying key k) of the items of the list
// at key of m.
func itemNames(m *yaml.Node, key, k string) []string {
	var names []string
	for _, item := range listAt(m, key) {
		if ik, v := itemKey(item); ik == k {
			names = append(names, v)
		}
	}
	return names
}

// namedItem is the item of the list at key of m whose identifying key k
// is name, nil if none.
func namedItem(m *yaml.Node, key, k, name string) *yaml.Node {
	for _, item := range listAt(m, key) {
		if ik, v := itemKey(item); ik == k && v == name {
			return item
		}
	}
	return nil
}

func keyed(seq *yaml.Node) bool {
	for _, item := range seq.Content {
		if k, _ := itemKey(item); k == "" {
			return false
		}
	}
	return len(seq.Content) > 0
}

func mergeKeyed(base, overlay *yaml.Node) {
	for _, item := range overlay.Content {
		k, name := itemKey(item)
		found := false
		for _, b := range base.Content {
			if bk, bn := itemKey(b); bk == k && bn == name {
				mergeNode(b, item)
				found = true
				break
			}
		}
		if !found {
			base.Content = append(base.Content, item)
		}
	}
}
