package workloads

import (
	"encoding/json"
	"strings"
	"testing"
)

// jsonValidCases are inputs at each edge of the grammar, valid and not.
func jsonValidCases() []string {
	cases := []string{
		``, ` `, `{}`, ` {} `, `[]`, `[ ]`, `{ }`, `""`, `"a"`, `0`, `-0`, `1`, `-1`, `12`, `012`, `-`, `--1`, `+1`,
		`1.`, `1.5`, `.5`, `1e5`, `1E+5`, `1e-5`, `1e`, `1e+`, `1.5e3`, `1.e3`, `0.0`, `00`, `-01`, `1 2`,
		`true`, `false`, `null`, `tru`, `truex`, `nul`, `True`, `NaN`, `Infinity`, `[1,]`, `[,1]`, `[1 2]`,
		`{"a":1}`, `{"a":1,}`, `{"a"}`, `{"a":}`, `{a:1}`, `{"a" : 1 , "b" : [ 1 , { } ] }`, `{"a":1 "b":2}`,
		`{,}`, `{"a":1}}`, `[[]`, `[]]`, `{"a":[}`, `["a\"b"]`, `"\u00e9"`, `"\u00G9"`, `"\u00e"`, `"\x"`,
		`"\/\b\f\n\r\t\\"`, "\"a\tb\"", "\"a\x1fb\"", "\"a\x7fb\"", "\"a\xffb\"", "\"\xc3\"", `"abc`, `"abc\`,
		"\t\r\n{}\n", "{}\x00", "\v{}", `{"v":1,"id":"j3","arrival_s":3`, `[1,2]x`, `{"a":{"b":{"c":[1,[2,[3]]]}}}`,
		`"\ud800"`, `-1.5E-10`, `1e01`, `[-]`, `[0x1]`, `[1.0e+]`, `{"":""}`, `{"\"":1}`,
	}
	for _, n := range []int{63, 64, 65, 200, jsonMaxDepth - 1, jsonMaxDepth, jsonMaxDepth + 1} {
		cases = append(cases, strings.Repeat("[", n)+strings.Repeat("]", n),
			strings.Repeat(`{"a":`, n)+"1"+strings.Repeat("}", n),
			strings.Repeat("[", n)+strings.Repeat("]", n-1))
	}
	return cases
}

// TestValidJSONMatchesEncodingJSON: validJSON says what json.Valid says,
// on every edge of the grammar and on every record of a generated trace
// cut at every byte.
func TestValidJSONMatchesEncodingJSON(t *testing.T) {
	inputs := jsonValidCases()
	good, awkward := jsonRecords(t)
	for _, line := range good {
		inputs = append(inputs, string(line))
	}
	for _, line := range append(good[:20:20], awkward...) {
		for n := 0; n < len(line); n++ {
			inputs = append(inputs, string(line[:n]))
		}
	}
	var valid, invalid int
	for _, in := range inputs {
		want := json.Valid([]byte(in))
		if got := validJSON([]byte(in)); got != want {
			t.Errorf("validJSON(%.80q) = %v, json.Valid says %v", in, got, want)
		}
		if want {
			valid++
		} else {
			invalid++
		}
	}
	if valid < 100 || invalid < 100 {
		t.Fatalf("%d valid and %d invalid inputs: the test checks too little of one side", valid, invalid)
	}
}

// FuzzValidJSON: validJSON agrees with json.Valid on any input.
func FuzzValidJSON(f *testing.F) {
	for _, s := range jsonValidCases() {
		if len(s) < 1000 {
			f.Add([]byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid says %v", b, got, want)
		}
	})
}
