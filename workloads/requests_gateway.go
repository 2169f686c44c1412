package workloads

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"time"
)

// A gateway request trace (RequestGateway) is what a gateway logged of
// the calls it passed on: JSON Lines, one call a line, in time order,
//
//	{"timestamp":0,"input_length":1200,"output_length":300,"model":"gpt-5.5","team":"search","key":"88dc…","latency_ms":812}
//
// timestamp milliseconds since the trace's first call (Mooncake's unit,
// up to three decimals), input_length and output_length the call's
// prompt and completion tokens, model a scenario model, team and key the
// call's source as the gateway recorded it (absent: none), latency_ms its
// recorded start to end (kept for reading; the simulator's latency model
// answers the replayed call). Unknown and repeated fields are errors.
// `sim trace import --from litellm` writes it (workloads/gatewaylog).

// GatewayCall is one line of a gateway request trace.
type GatewayCall struct {
	// At is the call's start, in microseconds since the trace's first.
	At        int64
	In, Out   int
	Model     string
	Team, Key string
	LatencyMS int64
}

// AppendJSON appends the call's line (with its newline) to b.
func (c GatewayCall) AppendJSON(b []byte) []byte {
	b = append(b, `{"timestamp":`...)
	b = strconv.AppendFloat(b, float64(c.At)/1000, 'f', -1, 64)
	b = append(b, `,"input_length":`...)
	b = strconv.AppendInt(b, int64(c.In), 10)
	b = append(b, `,"output_length":`...)
	b = strconv.AppendInt(b, int64(c.Out), 10)
	b = append(b, `,"model":`...)
	b = appendJSONString(b, c.Model)
	if c.Team != "" {
		b = append(b, `,"team":`...)
		b = appendJSONString(b, c.Team)
	}
	if c.Key != "" {
		b = append(b, `,"key":`...)
		b = appendJSONString(b, c.Key)
	}
	b = append(b, `,"latency_ms":`...)
	b = strconv.AppendInt(b, c.LatencyMS, 10)
	return append(b, "}\n"...)
}

// appendJSONString appends s as a JSON string (strconv's quoting is Go's,
// whose \x escapes JSON has not).
func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// MaxGatewayName bounds a gateway trace's model, team and key (bytes): a
// hashed LiteLLM key is 64 hex digits, a team id a UUID.
const MaxGatewayName = 256

// gatewayLine is the last gateway record read: what selects it.
type gatewayLine struct {
	model, team, key []byte
}

func (g *gatewayLine) selected(o ReplayOptions) bool {
	return (o.Model == "" || string(g.model) == o.Model) &&
		(o.Team == "" || string(g.team) == o.Team) &&
		(o.Key == "" || string(g.key) == o.Key)
}

// errGatewayField is a member of a gateway line the reader refuses.
var errGatewayField = errors.New("bad field")

func (r *requestReader) readGateway() (time.Duration, int, int, bool) {
	for !r.done {
		line, err := readLine(r.br)
		if len(line) == 0 && err == io.EOF {
			return 0, 0, 0, false
		}
		if err != nil && err != io.EOF {
			r.fail(r.line+1, "record", "%v", err)
			return 0, 0, 0, false
		}
		r.line++
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		ms, in, out, ok := r.parseGateway(line, err == io.EOF)
		if !ok {
			return 0, 0, 0, false
		}
		at, ok := r.sinceFirst(ms)
		return at, in, out, ok
	}
	return 0, 0, 0, false
}

// parseGateway reads one gateway line into r.gw and its time and tokens.
func (r *requestReader) parseGateway(line []byte, last bool) (ms float64, in, out int, ok bool) {
	if !validJSON(line) {
		if last {
			r.fail(r.line, "record", "truncated last line (not a complete JSON object)")
		} else {
			r.fail(r.line, "record", "invalid JSON")
		}
		return 0, 0, 0, false
	}
	obj := line[skipWS(line, 0):]
	if obj[0] != '{' {
		r.fail(r.line, "record", "want a JSON object, got %s", kindName(jsonKind(obj[0])))
		return 0, 0, 0, false
	}
	r.gw = gatewayLine{}
	var seen [7]bool
	names := [7]string{"timestamp", "input_length", "output_length", "model", "team", "key", "latency_ms"}
	err := jsonMembers(obj, func(qk, val []byte) error {
		k := jsonKey(qk)
		i := 0
		for i < len(names) && names[i] != k {
			i++
		}
		if i == len(names) {
			r.fail(r.line, k, "unknown field of a gateway trace (want %s)", "timestamp, input_length, output_length, model, team, key, latency_ms")
			return errGatewayField
		}
		if seen[i] {
			r.fail(r.line, k, "repeated")
			return errGatewayField
		}
		seen[i] = true
		switch i {
		case 0:
			v, perr := strconv.ParseFloat(string(val), 64)
			if jsonKind(val[0]) != 'n' || perr != nil || !(v >= 0) || math.IsInf(v, 0) {
				r.fail(r.line, k, "want milliseconds >= 0, got %s", val)
				return errGatewayField
			}
			ms = v
		case 1, 2, 6:
			v, perr := strconv.ParseInt(string(val), 10, 64)
			if jsonKind(val[0]) != 'n' || perr != nil || v < 0 || v > maxPlanTokens || (i == 6 && v > int64(MaxDuration/time.Millisecond)) {
				r.fail(r.line, k, "want an integer in [0, %d], got %s", maxPlanTokens, val)
				return errGatewayField
			}
			if i == 1 {
				in = int(v)
			} else if i == 2 {
				out = int(v)
			}
		default:
			var s []byte
			if jsonKind(val[0]) == 's' && !bytes.ContainsRune(val, '\\') {
				s = val[1 : len(val)-1]
			} else if jsonKind(val[0]) == 's' {
				var u string
				if uerr := json.Unmarshal(val, &u); uerr != nil {
					r.fail(r.line, k, "want a string, got %s", val)
					return errGatewayField
				}
				s = []byte(u)
			}
			if s == nil || len(s) == 0 || len(s) > MaxGatewayName {
				r.fail(r.line, k, "want a non-empty string of at most %d bytes, got %.40s", MaxGatewayName, val)
				return errGatewayField
			}
			switch i {
			case 3:
				r.gw.model = s
			case 4:
				r.gw.team = s
			case 5:
				r.gw.key = s
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, 0, false
	}
	for i, name := range names[:4] {
		if !seen[i] {
			r.fail(r.line, name, "missing")
			return 0, 0, 0, false
		}
	}
	return ms, in, out, true
}
