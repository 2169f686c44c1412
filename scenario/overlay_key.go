package scenario

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/evalsched/lab/internal/yamltree"
	"go.yaml.in/yaml/v3"
)

// SplitKey splits a dotted scenario key, as sweep grids and tune params
// write them, into its steps, reading the scenario's schema: a mapping's key
// may itself hold dots (policies.scheduler.models.gpt-5.5.max_limit: the
// model gpt-5.5), and a list whose items carry a name (or, for
// model_groups, a prefix) is stepped into by that name
// (organisations.acme.tpm, models.gpt-5.5.streams, keys.evals.rpm,
// model_groups.tail-.streams). Where several splits read, the shortest
// name that leaves a path of the schema wins. A key that is no path of the
// schema is an error.
func SplitKey(key string) ([]PathStep, error) {
	if steps, ok := splitKey(reflect.TypeFor[Scenario](), key); ok && key != "" {
		return steps, nil
	}
	msg := "not a scenario key (a dotted path of scenario keys; a list item by its name, e.g. organisations.acme.tpm or models.gpt-5.5.streams)"
	if hint := unknownField(key); hint != "" {
		msg = "not a scenario key: " + hint
	}
	return nil, errors.New(msg)
}

// unknownField follows key's fields from the top while they are fields of
// structs and names the first that is not, with the fields it could be
// ("policies has no key "schedular" (have fixed_lane, guards, inspect, scheduler)");
// "" if the path first reaches a map or a list, whose names it cannot judge.
func unknownField(key string) string {
	t, at := reflect.TypeFor[Scenario](), "the scenario"
	for name := range strings.SplitSeq(key, ".") {
		if strings.Contains(name, "[") {
			return fmt.Sprintf("%q: a list item is reached by its name, not an index (organisations.acme.tpm)", name)
		}
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t == nodeType || t == durationType {
			return ""
		}
		fields := map[string]reflect.Type{}
		yamltree.Fields(t, fields)
		ft, ok := fields[name]
		if name == "variants" && at == "the scenario" {
			return "variants are not set by a key (run one with variant: NAME)"
		}
		if !ok {
			delete(fields, "variants")
			return fmt.Sprintf("%s has no key %q (have %s)", at, name, strings.Join(slices.Sorted(maps.Keys(fields)), ", "))
		}
		t, at = ft, name
	}
	return ""
}

// splitKey parses rest as a path below a value of type t.
func splitKey(t reflect.Type, rest string) ([]PathStep, bool) {
	if rest == "" {
		return nil, true // the value itself
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == nodeType || t == durationType:
		return nil, false
	case t.Kind() == reflect.Struct:
		fields := map[string]reflect.Type{}
		yamltree.Fields(t, fields)
		name, sub, _ := strings.Cut(rest, ".")
		ft, ok := fields[name]
		if !ok || name == "variants" {
			return nil, false
		}
		if ft.Kind() == reflect.Slice && sub != "" {
			return splitItem(ft.Elem(), name, sub)
		}
		steps, ok := splitKey(ft, sub)
		if !ok || (sub == "" && strings.HasSuffix(rest, ".")) {
			return nil, false
		}
		return append([]PathStep{{Key: name}}, steps...), true
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
		return splitNamed(rest, func(k, sub string) ([]PathStep, bool) {
			steps, ok := splitKey(t.Elem(), sub)
			return append([]PathStep{{Key: k}}, steps...), ok
		})
	}
	return nil, false
}

// splitItem parses rest as an item's name then a path below that item, in
// the list at key whose items have type elem.
func splitItem(elem reflect.Type, key, rest string) ([]PathStep, bool) {
	for elem.Kind() == reflect.Pointer {
		elem = elem.Elem()
	}
	if elem.Kind() != reflect.Struct {
		return nil, false
	}
	fields := map[string]reflect.Type{}
	yamltree.Fields(elem, fields)
	itemKey := "name"
	if _, ok := fields["prefix"]; ok {
		itemKey = "prefix" // model_groups: merged on their prefix
	} else if _, ok := fields["name"]; !ok {
		return nil, false // items without names: the list is set whole
	}
	return splitNamed(rest, func(name, sub string) ([]PathStep, bool) {
		if sub == "" {
			return nil, false // a field of the item, not the item: "acme.tmp" is no name
		}
		steps, ok := splitKey(elem, sub)
		return append([]PathStep{{Key: key, ItemKey: itemKey, Item: name}}, steps...), ok
	})
}

// splitNamed tries each split of rest into a name (which may hold dots)
// and the path below it, the shortest name first: "gpt-5.5.max_limit" in
// a map of model settings is gpt-5.5, max_limit ("gpt-5" leaves "5.max_limit",
// no path), and the whole of rest is a name only when nothing shorter reads.
func splitNamed(rest string, below func(name, sub string) ([]PathStep, bool)) ([]PathStep, bool) {
	for end := 1; end < len(rest)-1; end++ { // a name and a path, neither empty
		if rest[end] != '.' {
			continue
		}
		if steps, ok := below(rest[:end], rest[end+1:]); ok {
			return steps, true
		}
	}
	if strings.HasSuffix(rest, ".") {
		return nil, false
	}
	return below(rest, "")
}

// CheckItems reports an error if a step of steps names a list item the
// scenario does not have: a dotted key sets a field of an existing item
// (a misspelt name would otherwise add an item and change nothing).
func (s *Scenario) CheckItems(steps []PathStep) error {
	n := s.root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, st := range steps {
		if n.Kind != yaml.MappingNode {
			return nil // below a value: no list items to find
		}
		j := keyIndex(n, st.Key)
		switch {
		case j < 0 && st.Item != "":
			return fmt.Errorf("the scenario has no %s", st.Key)
		case j < 0:
			return nil // a mapping the scenario leaves unset: nothing below to find
		case st.Item == "":
			n = n.Content[j+1]
			continue
		}
		item := namedItem(n, st.Key, st.ItemKey, st.Item)
		if item == nil {
			return fmt.Errorf("the scenario's %s has no item with %s %q (have %s)", st.Key, st.ItemKey, st.Item, strings.Join(itemNames(n, st.Key, st.ItemKey), ", "))
		}
		n = item
	}
	return nil
}
