package workloads

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/evalsched/lab/internal/field"
)

// CallPlan is a job's explicit agent loop, as a job trace may give it: the
// turns in order, each a set of parallel calls followed by a tool step. An
// Agent follows it exactly; only each call's latency variation is drawn.
type CallPlan struct {
	Turns []PlanTurn
	// Setup is the job's own work between its start and its first call
	// (a sandbox's setup, the solver's code), 0 for none. A replay of a
	// recorded run sets it; traces do not carry it.
	Setup time.Duration
}

// PlanTurn is one turn of a CallPlan: parallel calls, then Tool of tool time.
type PlanTurn struct {
	Calls []PlanCall
	Tool  time.Duration
	// Recorded is nil, or one CallRecord per call (see CallRecord): what an
	// imported log recorded beside the tokens. Add calls with AddCall.
	Recorded []CallRecord
	// Base is nil, or one unloaded latency in seconds per call, replacing
	// the model's ttft + output / decode_rate for that call (a replay's
	// out-of-sample prediction of each call; > 0). The provider's load
	// slowdown and jitter still apply. Traces do not carry it.
	Base []float64
	// Models is nil, or one catalogue index per call replacing the job's
	// model for that call (a replayed sample that calls several models:
	// each call goes to its own model's gateway lane and provider).
	// Traces do not carry it.
	Models []int
}

// PlanCall is one LLM call: input and output tokens.
type PlanCall struct {
	In, Out int
}

// maxPlanTokens bounds a call's tokens (the simulator keeps them in 32 bits).
const maxPlanTokens = math.MaxInt32

// PlanBehaviour wraps a plan in a Behaviour, the form a Job carries: the
// plan rides on the behaviour pointer, so a chained grading job (which
// replaces the behaviour) never inherits it.
func PlanBehaviour(p *CallPlan) *Behaviour { return &Behaviour{Plan: p} }

// Calls is the number of calls the plan makes.
func (p *CallPlan) Calls() int {
	n := 0
	for _, t := range p.Turns {
		n += len(t.Calls)
	}
	return n
}

// Validate checks the plan: at least one turn, at least one call per turn,
// tokens in [0, 2^31), tool time >= 0. path names the plan in errors (*field.Error).
func (p *CallPlan) Validate(path string) error {
	if len(p.Turns) == 0 {
		return field.Errorf(path, "no turns")
	}
	for i, t := range p.Turns {
		if len(t.Calls) == 0 {
			return field.Errorf(path, "turn %d: no calls", i+1)
		}
		for k, c := range t.Calls {
			if c.In < 0 || c.Out < 0 {
				return field.Errorf(path, "turn %d call %d: negative tokens (%d in, %d out)", i+1, k+1, c.In, c.Out)
			}
			if c.In > maxPlanTokens || c.Out > maxPlanTokens {
				return field.Errorf(path, "turn %d call %d: tokens above %d", i+1, k+1, maxPlanTokens)
			}
			if err := t.validateRecord(k); err != nil {
				return field.Errorf(path, "turn %d call %d: %v", i+1, k+1, err)
			}
		}
		if t.Tool < 0 {
			return field.Errorf(path, "turn %d: negative tool seconds %s", i+1, formatSeconds(t.Tool))
		}
	}
	return nil
}

// String is the compact encoding (see ParseCompactPlan).
func (p *CallPlan) String() string { return string(p.AppendCompact(nil)) }

// AppendCompact appends the compact encoding of the plan:
// turns separated by ';', each IN:OUT[+IN:OUT...][/TOOL_SECONDS]; a call
// with a record is IN:OUT:CACHE_READ:CACHE_WRITE:MAX_TOKENS.
func (p *CallPlan) AppendCompact(b []byte) []byte {
	for i, t := range p.Turns {
		if i > 0 {
			b = append(b, ';')
		}
		for k, c := range t.Calls {
			if k > 0 {
				b = append(b, '+')
			}
			b = strconv.AppendInt(b, int64(c.In), 10)
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(c.Out), 10)
			b = t.appendRecord(b, k, ':')
		}
		if t.Tool != 0 {
			b = append(b, '/')
			b = appendSeconds(b, t.Tool)
		}
	}
	return b
}

// AppendJSON appends the plan as JSON: [{"calls":[[IN,OUT],...],"tool_s":S},...]
// ("tool_s" left out when 0); a call with a record is
// [IN,OUT,CACHE_READ,CACHE_WRITE,MAX_TOKENS].
func (p *CallPlan) AppendJSON(b []byte) []byte {
	b = append(b, '[')
	for i, t := range p.Turns {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"calls":[`...)
		for k, c := range t.Calls {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(c.In), 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(c.Out), 10)
			b = t.appendRecord(b, k, ',')
			b = append(b, ']')
		}
		b = append(b, ']')
		if t.Tool != 0 {
			b = append(b, `,"tool_s":`...)
			b = appendSeconds(b, t.Tool)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// ParseCompactPlan reads the compact encoding: turns separated by ';', each
// turn its calls separated by '+', each call IN:OUT (non-negative integers),
// or IN:OUT:CACHE_READ:CACHE_WRITE:MAX_TOKENS (see CallRecord), the turn
// optionally followed by /TOOL_SECONDS (a non-negative decimal). Spaces are
// not allowed. Example: "1200:300+1200:280/2.5;2100:450".
func ParseCompactPlan(s string) (*CallPlan, error) {
	if s == "" {
		return nil, fmt.Errorf("empty plan")
	}
	p := &CallPlan{Turns: make([]PlanTurn, 0, strings.Count(s, ";")+1)}
	for ti, ts := range strings.Split(s, ";") {
		var t PlanTurn
		calls := ts
		if i := strings.IndexByte(ts, '/'); i >= 0 {
			calls = ts[:i]
			d, err := parseSeconds(ts[i+1:])
			if err != nil {
				return nil, fmt.Errorf("turn %d: tool seconds: %v", ti+1, err)
			}
			t.Tool = d
		}
		if calls == "" {
			return nil, fmt.Errorf("turn %d: no calls", ti+1)
		}
		t.Calls = make([]PlanCall, 0, strings.Count(calls, "+")+1)
		for ci, cs := range strings.Split(calls, "+") {
			n := strings.Count(cs, ":") + 1
			if n != 2 && n != 5 {
				return nil, fmt.Errorf("turn %d call %d: want IN:OUT, got %q", ti+1, ci+1, cs)
			}
			var parts [5]string // no slice per call: plans are parsed on every replay
			rest := cs
			for i := range n {
				parts[i], rest, _ = strings.Cut(rest, ":")
			}
			c, r, err := parseCallNumbers(parts[:n])
			if err != nil {
				return nil, fmt.Errorf("turn %d call %d: %v", ti+1, ci+1, err)
			}
			t.AddCall(c, r)
		}
		p.Turns = append(p.Turns, t)
	}
	return p, nil
}

// parseTokens reads a token count: an integer, negative allowed here so
// Validate can name the problem.
func parseTokens(s string) (int, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, fmt.Errorf("%q out of range", s)
		}
		return 0, fmt.Errorf("want an integer, got %q", s)
	}
	if v > maxPlanTokens {
		return 0, fmt.Errorf("%d above %d", v, maxPlanTokens)
	}
	if v < -maxPlanTokens {
		return 0, fmt.Errorf("%d out of range", v)
	}
	return int(v), nil
}

// parseSeconds reads a decimal number of seconds into a Duration. A plain
// decimal with at most nine fraction digits converts exactly; anything else
// (exponents, more digits) goes through float64 and rounds to the nanosecond.
// Negative values are returned as such (callers decide); NaN and infinities
// are errors.
func parseSeconds(s string) (time.Duration, error) {
	if d, ok := parseDecimalSeconds(s); ok {
		return d, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("want a number of seconds, got %q", s)
	}
	ns := math.Round(f * 1e9)
	if math.Abs(ns) >= math.MaxInt64 {
		return 0, fmt.Errorf("%q seconds out of range", s)
	}
	return time.Duration(ns), nil
}

// parseDecimalSeconds converts [-]D+[.D{1,9}] exactly; ok is false for any
// other form or on overflow.
func parseDecimalSeconds(s string) (time.Duration, bool) {
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || len(whole) > 9 || len(frac) > 9 || (hasDot && frac == "") {
		return 0, false
	}
	var sec, ns int64
	for i := 0; i < len(whole); i++ {
		c := whole[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		sec = sec*10 + int64(c-'0')
	}
	for i := 0; i < 9; i++ {
		ns *= 10
		if i < len(frac) {
			c := frac[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			ns += int64(c - '0')
		}
	}
	d := time.Duration(sec*1e9 + ns)
	if neg {
		d = -d
	}
	return d, true
}

// appendSeconds writes a Duration as exact decimal seconds, without trailing
// zeros: 1.5, 3, 0.000000001.
func appendSeconds(b []byte, d time.Duration) []byte {
	m := uint64(d) // the magnitude, as unsigned: −MinInt64 does not fit an int64
	if d < 0 {
		b = append(b, '-')
		m = -m
	}
	b = strconv.AppendUint(b, m/uint64(time.Second), 10)
	ns := int64(m % uint64(time.Second))
	if ns == 0 {
		return b
	}
	var frac [9]byte
	for i := 8; i >= 0; i-- {
		frac[i] = byte('0' + ns%10)
		ns /= 10
	}
	n := 9
	for n > 0 && frac[n-1] == '0' {
		n--
	}
	b = append(b, '.')
	return append(b, frac[:n]...)
}

func formatSeconds(d time.Duration) string { return string(appendSeconds(nil, d)) }
