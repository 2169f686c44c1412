// Package jsonschema checks JSON values against a JSON Schema, for the
// subset of the 2020-12 vocabulary the lab's schemas use: type (a name or
// a list), const, enum, minimum, properties, required,
// additionalProperties (false or a schema), items, minItems, maxItems,
// oneOf and $ref to "#/$defs/NAME". Keywords outside the subset are
// refused when the schema is compiled, so a schema cannot silently ask
// for more than is checked; annotations ($schema, $id, title,
// description, $comment, examples) are ignored.
package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Schema is a compiled schema document.
type Schema struct {
	root map[string]any
}

var known = []string{"type", "const", "enum", "minimum", "properties", "required", "additionalProperties",
	"items", "minItems", "maxItems", "oneOf", "$ref", "$defs",
	"$schema", "$id", "title", "description", "$comment", "examples"}

// Compile reads a schema document and checks it uses only the subset.
func Compile(doc []byte) (*Schema, error) {
	var root map[string]any
	if err := decode(doc, &root); err != nil {
		return nil, err
	}
	s := &Schema{root: root}
	if err := s.check(root, "#"); err != nil {
		return nil, err
	}
	return s, nil
}

func decode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value")
	}
	return nil
}

func (s *Schema) check(n map[string]any, at string) error {
	for k, v := range n {
		if !slices.Contains(known, k) {
			return fmt.Errorf("%s: keyword %q is outside the checked subset", at, k)
		}
		switch k {
		case "properties", "$defs":
			for name, sub := range v.(map[string]any) {
				if err := s.check(sub.(map[string]any), at+"/"+k+"/"+name); err != nil {
					return err
				}
			}
		case "items":
			if err := s.check(v.(map[string]any), at+"/items"); err != nil {
				return err
			}
		case "additionalProperties":
			if sub, ok := v.(map[string]any); ok {
				if err := s.check(sub, at+"/additionalProperties"); err != nil {
					return err
				}
			}
		case "oneOf":
			for i, sub := range v.([]any) {
				if err := s.check(sub.(map[string]any), fmt.Sprintf("%s/oneOf/%d", at, i)); err != nil {
					return err
				}
			}
		case "$ref":
			if _, err := s.ref(v.(string)); err != nil {
				return fmt.Errorf("%s: %w", at, err)
			}
		}
	}
	return nil
}

func (s *Schema) ref(r string) (map[string]any, error) {
	name, ok := strings.CutPrefix(r, "#/$defs/")
	defs, _ := s.root["$defs"].(map[string]any)
	def, found := defs[name].(map[string]any)
	if !ok || !found {
		return nil, fmt.Errorf("$ref %q: want #/$defs/NAME of this document", r)
	}
	return def, nil
}

// Validate checks one JSON document against the schema's definition def
// ("" for the root), and returns the first violation, located by its
// JSON path.
func (s *Schema) Validate(def string, doc []byte) error {
	var v any
	if err := decode(doc, &v); err != nil {
		return err
	}
	n := s.root
	if def != "" {
		var err error
		if n, err = s.ref("#/$defs/" + def); err != nil {
			return err
		}
	}
	return s.validate(n, v, "$")
}

func typeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if strings.ContainsAny(x.String(), ".eE") {
			return "number"
		}
		return "integer"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func hasType(want any, got string) bool {
	switch w := want.(type) {
	case string:
		return w == got || (w == "number" && got == "integer")
	case []any:
		for _, x := range w {
			if hasType(x, got) {
				return true
			}
		}
	}
	return false
}

func equal(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func (s *Schema) validate(n map[string]any, v any, at string) error {
	if r, ok := n["$ref"].(string); ok {
		def, err := s.ref(r)
		if err != nil {
			return err
		}
		if err := s.validate(def, v, at); err != nil {
			return err
		}
	}
	if t, ok := n["type"]; ok && !hasType(t, typeOf(v)) {
		return fmt.Errorf("%s: want type %v, got %s", at, t, typeOf(v))
	}
	if c, ok := n["const"]; ok && !equal(c, v) {
		return fmt.Errorf("%s: want %v, got %v", at, c, v)
	}
	if e, ok := n["enum"].([]any); ok && !slices.ContainsFunc(e, func(x any) bool { return equal(x, v) }) {
		return fmt.Errorf("%s: want one of %v, got %v", at, e, v)
	}
	if m, ok := n["minimum"].(json.Number); ok {
		if num, isNum := v.(json.Number); isNum {
			lo, _ := m.Float64()
			f, _ := num.Float64()
			if f < lo {
				return fmt.Errorf("%s: %v is below the minimum %v", at, num, m)
			}
		}
	}
	if obj, ok := v.(map[string]any); ok {
		props, _ := n["properties"].(map[string]any)
		for _, r := range asList(n["required"]) {
			if _, has := obj[r.(string)]; !has {
				return fmt.Errorf("%s: lacks the required %q", at, r)
			}
		}
		for _, k := range sortedKeys(obj) {
			if sub, ok := props[k].(map[string]any); ok {
				if err := s.validate(sub, obj[k], at+"."+k); err != nil {
					return err
				}
				continue
			}
			switch ap := n["additionalProperties"].(type) {
			case bool:
				if !ap {
					return fmt.Errorf("%s: %q is not a property of this message", at, k)
				}
			case map[string]any:
				if err := s.validate(ap, obj[k], at+"."+k); err != nil {
					return err
				}
			}
		}
	}
	if arr, ok := v.([]any); ok {
		if m, ok := n["minItems"].(json.Number); ok {
			if lo, _ := m.Int64(); int64(len(arr)) < lo {
				return fmt.Errorf("%s: %d items, want at least %d", at, len(arr), lo)
			}
		}
		if m, ok := n["maxItems"].(json.Number); ok {
			if hi, _ := m.Int64(); int64(len(arr)) > hi {
				return fmt.Errorf("%s: %d items, want at most %d", at, len(arr), hi)
			}
		}
		if items, ok := n["items"].(map[string]any); ok {
			for i, x := range arr {
				if err := s.validate(items, x, fmt.Sprintf("%s[%d]", at, i)); err != nil {
					return err
				}
			}
		}
	}
	if one, ok := n["oneOf"].([]any); ok {
		matched := 0
		var errs []string
		for _, sub := range one {
			if err := s.validate(sub.(map[string]any), v, at); err != nil {
				errs = append(errs, err.Error())
			} else {
				matched++
			}
		}
		if matched != 1 {
			return fmt.Errorf("%s: matches %d of the oneOf schemas, want exactly one (%s)", at, matched, strings.Join(errs, "; "))
		}
	}
	return nil
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
