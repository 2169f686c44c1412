package jsonschema

import (
	"strings"
	"testing"
)

const doc = `{
  "$defs": {
    "msg": {"oneOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/b"}]},
    "a": {"type": "object", "required": ["type", "n"], "additionalProperties": false,
          "properties": {"type": {"const": "a"}, "n": {"type": "integer", "minimum": 0},
                         "at": {"type": ["integer", "null"]}}},
    "b": {"type": "object", "required": ["type"], "additionalProperties": false,
          "properties": {"type": {"const": "b"}, "xs": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "number"}},
                         "mode": {"enum": ["x", "y"]}}}
  }
}`

func TestValidate(t *testing.T) {
	s, err := Compile([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, err string }{
		{`{"type":"a","n":3}`, ""},
		{`{"type":"a","n":3,"at":null}`, ""},
		{`{"type":"b","xs":[1,2.5],"mode":"y"}`, ""},
		{`{"type":"a"}`, `lacks the required "n"`},
		{`{"type":"a","n":-1}`, "below the minimum"},
		{`{"type":"a","n":1.5}`, "want type integer"},
		{`{"type":"a","n":1,"extra":2}`, `"extra" is not a property`},
		{`{"type":"a","n":1,"at":"x"}`, "want type [integer null]"},
		{`{"type":"b","xs":[]}`, "at least 1"},
		{`{"type":"b","xs":[1,2,3]}`, "at most 2"},
		{`{"type":"b","xs":["1"]}`, "$.xs[0]: want type number"},
		{`{"type":"b","mode":"z"}`, "want one of"},
		{`{"type":"c"}`, "matches 0 of the oneOf"},
		{`{"type":"a","n":1} {}`, "more than one"},
	} {
		err := s.Validate("msg", []byte(tc.in))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.in, err, tc.err)
		}
	}
}

func TestCompileRefusesWhatItDoesNotCheck(t *testing.T) {
	for _, bad := range []string{
		`{"type": "object", "pattern": "x"}`,
		`{"$defs": {"a": {"properties": {"x": {"format": "date"}}}}}`,
		`{"$ref": "#/$defs/missing"}`,
		`{"$ref": "other.json#/x"}`,
	} {
		if _, err := Compile([]byte(bad)); err == nil {
			t.Errorf("Compile(%s): no error", bad)
		}
	}
}
