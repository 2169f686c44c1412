package workloads

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/evalsched/lab/internal/field"
)

// parseJSON splits one JSON Lines record into t.raw.
//
// The record is checked with validJSON (what json.Valid says, in one walk:
// json_valid.go), then split by the small scanner below, which only walks
// valid JSON. The scanner stays, rather than json.Decoder's Token and
// Decode, because it is over ten times faster and allocates one small
// object per record where the decoder makes over a hundred, which a replay
// (validation, then a pass per run) feels end to end: see
// BenchmarkJSONRecord in trace_json_test.go, which runs both, and
// TestJSONSplitMatchesDecoder, which checks they split records alike.
func (t *TraceReader) parseJSON(line []byte, last bool) { t.splitJSON(line, last, jsonMembers) }

// splitJSON splits a record with members, which walks an object's members.
func (t *TraceReader) splitJSON(line []byte, last bool, members func([]byte, func(key, val []byte) error) error) {
	obj, ok := t.jsonObject(line, last)
	if !ok {
		return
	}
	if t.setField == nil {
		t.setField = t.setJSONField // bound once: a method value per record is an allocation
	}
	err := members(obj, t.setField)
	if err != nil {
		t.rawOK = false
		t.recErr = t.locate(err)
	}
}

// jsonObject checks a record is valid JSON and an object, and returns it
// from its opening brace; false (with the record marked bad) if not.
func (t *TraceReader) jsonObject(line []byte, last bool) ([]byte, bool) {
	if !validJSON(line) {
		var msg string
		if jerr := json.Unmarshal(line, new(json.RawMessage)); jerr != nil {
			msg = jerr.Error()
		}
		msg = strings.TrimPrefix(msg, "json: ")
		if last {
			t.badRecord("record", "truncated last line (no newline at the end, and not a complete JSON object: %s)", msg)
		} else {
			t.badRecord("record", "invalid JSON: %s", msg)
		}
		return nil, false
	}
	obj := line[skipWS(line, 0):]
	if obj[0] != '{' {
		t.badRecord("record", "want a JSON object, got %s", kindName(jsonKind(obj[0])))
		return nil, false
	}
	return obj, true
}

// jsonKey is a member's key from its quoted form: as written when it has
// no escapes (like a string value), else decoded.
func jsonKey(quoted []byte) string {
	key := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(key, '\\') < 0 {
		return string(key)
	}
	var s string
	_ = json.Unmarshal(quoted, &s)
	return s
}

// jsonFieldIndex is the field a member's quoted key names (-1: none),
// without making a string of a key that has no escapes.
func jsonFieldIndex(quoted []byte) int {
	key := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(key, '\\') >= 0 {
		return fieldIndex(jsonKey(quoted))
	}
	for i, n := range fieldNames {
		if n == string(key) {
			return i
		}
	}
	return -1
}

// setJSONField keeps one member of a record, given its quoted key: a known
// field's kind and text (a string's content, unescaped into scratch when it
// has escapes).
func (t *TraceReader) setJSONField(quotedKey, val []byte) error {
	f := jsonFieldIndex(quotedKey)
	if f < 0 {
		return field.Errorf(jsonKey(quotedKey), "unknown field (known: %s)", strings.Join(fieldNames[:], ", "))
	}
	if t.raw[f].kind != 0 {
		return field.Errorf(fieldNames[f], "repeated field")
	}
	k := jsonKind(val[0])
	text := val
	if k == 's' {
		text = val[1 : len(val)-1]
		if bytes.IndexByte(text, '\\') >= 0 {
			var s string
			_ = json.Unmarshal(val, &s)
			start := len(t.scratch)
			t.scratch = append(t.scratch, s...)
			text = t.scratch[start:]
		}
	}
	t.raw[f] = rawField{kind: k, text: text}
	return nil
}

func jsonKind(c byte) byte {
	switch c {
	case '"':
		return 's'
	case '[':
		return 'a'
	case '{':
		return 'o'
	case 't', 'f':
		return 'b'
	case 'n':
		return 'z'
	}
	return 'n'
}

// skipWS skips JSON white space from i.
func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value starting at i; b is valid JSON.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		for i++; ; i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipValue(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
		i++
	}
	return i
}

// jsonElems calls fn for each element of the JSON array b (valid JSON).
func jsonElems(b []byte, fn func(elem []byte) error) error {
	i := skipWS(b, 1)
	for b[i] != ']' {
		end := skipValue(b, i)
		if err := fn(b[i:end]); err != nil {
			return err
		}
		i = skipWS(b, end)
		if b[i] == ',' {
			i = skipWS(b, i+1)
		}
	}
	return nil
}

// jsonMembers calls fn for each member of the JSON object b (valid JSON)
// with its key, quoted as written, and its value.
func jsonMembers(b []byte, fn func(key, val []byte) error) error {
	i := skipWS(b, 1)
	for b[i] != '}' {
		kEnd := skipValue(b, i)
		key := b[i:kEnd]
		i = skipWS(b, kEnd)
		i = skipWS(b, i+1) // ':'
		vEnd := skipValue(b, i)
		if err := fn(key, b[i:vEnd]); err != nil {
			return err
		}
		i = skipWS(b, vEnd)
		if b[i] == ',' {
			i = skipWS(b, i+1)
		}
	}
	return nil
}

// parseJSONPlan reads a plan given as a JSON array of turns (valid JSON).
func parseJSONPlan(b []byte) (*CallPlan, error) {
	if b[0] != '[' {
		return nil, fmt.Errorf("want an array of turns or a compact plan string, got %s", kindName(jsonKind(b[0])))
	}
	p := &CallPlan{}
	err := jsonElems(b, func(tb []byte) error {
		turn, err := parseJSONTurn(len(p.Turns)+1, tb)
		p.Turns = append(p.Turns, turn)
		return err
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// parseJSONTurn reads turn n, {"calls": [[IN, OUT], ...], "tool_s": S}.
func parseJSONTurn(n int, tb []byte) (PlanTurn, error) {
	var turn PlanTurn
	if tb[0] != '{' {
		return turn, fmt.Errorf("turn %d: want an object {\"calls\": [[IN, OUT], ...], \"tool_s\": S}, got %s", n, kindName(jsonKind(tb[0])))
	}
	seen := false
	err := jsonMembers(tb, func(quoted, v []byte) error {
		var key string
		_ = json.Unmarshal(quoted, &key)
		switch key {
		case "calls":
			seen = true
			if v[0] != '[' {
				return fmt.Errorf("turn %d: calls: want an array of [IN, OUT], got %s", n, kindName(jsonKind(v[0])))
			}
			return jsonElems(v, func(cb []byte) error {
				c, r, err := parseJSONCall(n, len(turn.Calls)+1, cb)
				turn.AddCall(c, r)
				return err
			})
		case "tool_s":
			if jsonKind(v[0]) != 'n' {
				return fmt.Errorf("turn %d: tool_s: want a number, got %s", n, kindName(jsonKind(v[0])))
			}
			d, err := parseSeconds(string(v))
			if err != nil {
				return fmt.Errorf("turn %d: tool_s: %v", n, err)
			}
			turn.Tool = d
			return nil
		}
		return fmt.Errorf("turn %d: unknown field %q (want calls, tool_s)", n, key)
	})
	if err == nil && !seen {
		err = fmt.Errorf("turn %d: calls: missing", n)
	}
	return turn, err
}

// parseJSONCall reads call k of turn n, [IN, OUT] or
// [IN, OUT, CACHE_READ, CACHE_WRITE, MAX_TOKENS]. The elements stay in a
// fixed array: a plan job's calls are parsed on every replay.
func parseJSONCall(n, k int, cb []byte) (PlanCall, CallRecord, error) {
	var elems [5][]byte
	cnt := 0
	numbers := cb[0] == '['
	if numbers {
		_ = jsonElems(cb, func(x []byte) error {
			numbers = numbers && jsonKind(x[0]) == 'n'
			if cnt < len(elems) {
				elems[cnt] = x
			}
			cnt++
			return nil
		})
	}
	if !numbers || (cnt != 2 && cnt != 5) {
		return PlanCall{}, CallRecord{}, fmt.Errorf("turn %d call %d: want [IN, OUT] (two integers), or five with the record [IN, OUT, CACHE_READ, CACHE_WRITE, MAX_TOKENS], got %s", n, k, cb)
	}
	var v [5]int
	for i := range cnt {
		t, err := parseTokens(string(elems[i]))
		if err != nil {
			return PlanCall{}, CallRecord{}, fmt.Errorf("turn %d call %d: %s: %v", n, k, callFieldNames[i], err)
		}
		v[i] = t
	}
	return PlanCall{In: v[0], Out: v[1]}, CallRecord{CacheRead: v[2], CacheWrite: v[3], MaxTokens: v[4]}, nil
}

// countingReader counts the bytes read and remembers the last one and EOF,
// so the CSV reader can tell a last line without a newline.
