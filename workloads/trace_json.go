package workloads

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

func (t *TraceReader) parseJSON(line []byte, last bool) {
	if !json.Valid(line) {
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
		return
	}
	i := skipWS(line, 0)
	if line[i] != '{' {
		t.badRecord("record", "want a JSON object, got %s", kindName(jsonKind(line[i])))
		return
	}
	i = skipWS(line, i+1)
	for line[i] != '}' {
		kEnd := skipValue(line, i)
		key := line[i+1 : kEnd-1]
		var keyStr string
		if bytes.IndexByte(key, '\\') >= 0 {
			_ = json.Unmarshal(line[i:kEnd], &keyStr)
		} else {
			keyStr = string(key) // not retained: compared below
		}
		i = skipWS(line, kEnd)
		i = skipWS(line, i+1) // ':'
		vEnd := skipValue(line, i)
		val := line[i:vEnd]
		f := fieldIndex(keyStr)
		if f < 0 {
			t.badRecord(keyStr, "unknown field (known: %s)", strings.Join(fieldNames[:], ", "))
			return
		}
		if t.raw[f].kind != 0 {
			t.badRecord(keyStr, "repeated field")
			return
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
		i = skipWS(line, vEnd)
		if line[i] == ',' {
			i = skipWS(line, i+1)
		}
	}
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

// jsonMembers calls fn for each member of the JSON object b (valid JSON).
func jsonMembers(b []byte, fn func(key string, val []byte) error) error {
	i := skipWS(b, 1)
	for b[i] != '}' {
		kEnd := skipValue(b, i)
		var key string
		if err := json.Unmarshal(b[i:kEnd], &key); err != nil {
			return err
		}
		i = skipWS(b, kEnd)
		i = skipWS(b, i+1)
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
		n := len(p.Turns) + 1
		if tb[0] != '{' {
			return fmt.Errorf("turn %d: want an object {\"calls\": [[IN, OUT], ...], \"tool_s\": S}, got %s", n, kindName(jsonKind(tb[0])))
		}
		var turn PlanTurn
		seen := false
		err := jsonMembers(tb, func(key string, v []byte) error {
			switch key {
			case "calls":
				seen = true
				if v[0] != '[' {
					return fmt.Errorf("turn %d: calls: want an array of [IN, OUT], got %s", n, kindName(jsonKind(v[0])))
				}
				return jsonElems(v, func(cb []byte) error {
					k := len(turn.Calls) + 1
					var elems [][]byte
					if cb[0] == '[' {
						_ = jsonElems(cb, func(x []byte) error {
							elems = append(elems, x)
							return nil
						})
					}
					if len(elems) != 2 || jsonKind(elems[0][0]) != 'n' || jsonKind(elems[1][0]) != 'n' {
						return fmt.Errorf("turn %d call %d: want [IN, OUT] (two integers), got %s", n, k, cb)
					}
					var c PlanCall
					var err error
					if c.In, err = parseTokens(string(elems[0])); err != nil {
						return fmt.Errorf("turn %d call %d: input tokens: %v", n, k, err)
					}
					if c.Out, err = parseTokens(string(elems[1])); err != nil {
						return fmt.Errorf("turn %d call %d: output tokens: %v", n, k, err)
					}
					turn.Calls = append(turn.Calls, c)
					return nil
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
		if err != nil {
			return err
		}
		if !seen {
			return fmt.Errorf("turn %d: calls: missing", n)
		}
		p.Turns = append(p.Turns, turn)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// countingReader counts the bytes read and remembers the last one and EOF,
// so the CSV reader can tell a last line without a newline.
