package workloads

// jsonMaxDepth is encoding/json's nesting limit: a value nested deeper is
// not valid JSON to json.Valid.
const jsonMaxDepth = 10000

// validJSON reports whether b is one JSON value with only white space
// around it, exactly as encoding/json.Valid does: the same grammar, no
// UTF-8 check inside strings (json.Valid makes none), and the same nesting
// limit. It walks the record once, token by token, where json.Valid steps
// a state machine through a function call per byte: a trace replay checks
// every record on every pass, where json.Valid would be a quarter of a
// fixed-lane replay's time. FuzzValidJSON checks it against json.Valid.
func validJSON(b []byte) bool {
	var open [64]byte // the open containers, '{' or '['; deeper ones spill to the heap
	stack := open[:0]
	i := skipWS(b, 0)
	for {
		// A value starts at i.
		if i >= len(b) {
			return false
		}
		switch c := b[i]; c {
		case '{', '[':
			if len(stack) == jsonMaxDepth {
				return false
			}
			stack = append(stack, c)
			i = skipWS(b, i+1)
			if i < len(b) && b[i] == c+2 { // '{'+2 is '}', '['+2 is ']'
				stack = stack[:len(stack)-1]
				i++
				break // an empty container is a whole value
			}
			if c == '{' {
				i = jsonMemberValue(b, i)
			}
			if i < 0 {
				return false
			}
			continue // its first element or member value starts at i
		case '"':
			i = jsonStringEnd(b, i)
		case 't':
			i = jsonLiteralEnd(b, i, "true")
		case 'f':
			i = jsonLiteralEnd(b, i, "false")
		case 'n':
			i = jsonLiteralEnd(b, i, "null")
		default:
			i = jsonNumberEnd(b, i)
		}
		if i < 0 {
			return false
		}
		// A value ended at i: close what it ends, up to a comma before the
		// next value, or the end of the record.
		for {
			i = skipWS(b, i)
			if len(stack) == 0 {
				return i == len(b)
			}
			if i == len(b) {
				return false
			}
			top := stack[len(stack)-1]
			if b[i] == ',' {
				i = skipWS(b, i+1)
				if top == '{' {
					i = jsonMemberValue(b, i)
				}
				break
			}
			if b[i] != top+2 {
				return false
			}
			stack = stack[:len(stack)-1]
			i++
		}
		if i < 0 {
			return false
		}
	}
}

// jsonMemberValue reads a member's key and colon from i and returns where
// its value starts (-1: not a key and a colon).
func jsonMemberValue(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = jsonStringEnd(b, i); i < 0 {
		return -1
	}
	if i = skipWS(b, i); i >= len(b) || b[i] != ':' {
		return -1
	}
	return skipWS(b, i+1)
}

// jsonStringEnd returns the end of the string that opens at b[i] (-1: not
// a valid string). Any byte from 0x20 up is taken as it is; below 0x20 a
// byte must be escaped.
func jsonStringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return -1
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return -1
					}
				}
				i += 4
			default:
				return -1
			}
		case c < 0x20:
			return -1
		}
	}
	return -1
}

// jsonNumberEnd returns the end of the number that starts at b[i] (-1: not
// a valid number): -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
func jsonNumberEnd(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digitsEnd(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if i++; i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		i = digitsEnd(b, i+1)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		i = digitsEnd(b, i+1)
	}
	return i
}

// jsonLiteralEnd returns the end of lit at b[i] (-1: not there).
func jsonLiteralEnd(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

func digitsEnd(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
