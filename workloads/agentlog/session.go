package agentlog

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/workloads"
)

// Format is a log format the importer reads.
type Format int

// The formats.
const (
	Inspect  Format = iota + 1 // Inspect AI eval logs: .eval (zip) or .json
	OTLP                       // OpenTelemetry GenAI spans, OTLP/JSON (.json, .jsonl)
	TraceLab                   // TraceLab round_trace.jsonl
)

// Formats lists the formats by name, in the order of the constants.
var Formats = []Format{Inspect, OTLP, TraceLab}

func (f Format) String() string {
	switch f {
	case Inspect:
		return "inspect"
	case OTLP:
		return "otlp"
	case TraceLab:
		return "tracelab"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ParseFormat reads a format name: inspect, otlp or tracelab.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if f.String() == s {
			return f, nil
		}
	}
	return 0, fmt.Errorf("unknown log format %q (want inspect, otlp or tracelab)", s)
}

// Call is one model call as a log recorded it. Times are Unix nanoseconds;
// In is the whole prompt (uncached, cache read and cache write together).
type Call struct {
	Start, End int64
	Model      string
	Provider   string // as recorded, "" when not
	In, Out    int
	workloads.CallRecord
	Retries int
	// Working is the successful try's time (Inspect working_time, else
	// output.time), 0 when not recorded: the provider's own latency,
	// without waits.
	Working time.Duration
	// EndEstimated: the log did not record the call's end (Inspect before
	// 0.3.71 writes no completed); End is Start + Working, which leaves out
	// any wait for a connection and any failed try.
	EndEstimated bool
}

// Tool is one tool execution. Tools do not make a plan's tool time (that is
// measured between turns, see Turns); they are counted.
type Tool struct {
	Start, End int64
	Name       string
	Failed     bool
}

// Session is what becomes one job: an Inspect sample, an OTLP agent
// invocation (or conversation, or trace), a TraceLab session.
type Session struct {
	ID      string // job id
	Project string
	Batch   string
	Start   int64 // Unix ns: the sample's (invocation's, session's) start
	Where   string
	Calls   []Call
	Tools   []Tool
	// Settings are the concurrency limits the log's run had (Inspect's
	// header), nil when the format records none.
	Settings *Settings
	// Run is what the log says of the run that wrote the session (Inspect
	// logs), nil when the format records none. Sessions of one log share it.
	Run *Run
	// Admitted is when the harness started the sample (Inspect's
	// sample_init, written once the sample holds its max_samples slot),
	// Ended the sample's last event; Unix ns, 0 when not recorded.
	Admitted, Ended int64
	// Order is the sample's place in the order the harness queues its
	// samples (epoch-major, then dataset order), -1 when not known.
	Order int
	// order is the session's place in the input: the OTLP reader hands
	// sessions over in the order of its sort, each with its first span's
	// position; the other readers in input order.
	order int64
}

// Settings are an Inspect eval's concurrency limits; 0 means not set.
type Settings struct {
	MaxSamples, MaxSandboxes, MaxConnections int
}

// Run is what an Inspect log's header says of its run.
type Run struct {
	File    string
	RunID   string // one inspect process (an eval of several tasks, an eval-set) shares it
	EvalID  string
	Task    string
	Model   string
	Version string // inspect_ai's, as recorded ("" when not)
	Status  string // success, cancelled, error, started
	// Created and Started (stats.started_at) are Unix ns, 0 when not recorded.
	Created, Started int64
	Settings
	MaxTasks, Epochs int // 0: not set
	// Samples is the dataset's sample ids in order (their JSON text).
	Samples []string
}

// Turn is a set of calls whose [Start, End] intervals overlap (chained:
// a call joins the turn when it starts before the turn's latest end). A
// turn ends no later than the next one starts (Turns).
type Turn struct {
	Calls      []Call
	Start, End int64
	joinBy     int64 // a call starting before this joins the turn
}

// Turns sorts the calls by start (then end) and groups them into turns.
// Two calls of which one starts exactly when the other ends are in
// different turns: nothing was in flight between them. A call joins a
// turn only when the log shows it was made while the turn's calls were
// outstanding: before a recorded end, or, where the end is only
// estimated (EndEstimated), before the middle of the estimated interval —
// an estimated end is off by the clock's and the timer's disagreement
// (a few milliseconds), which must not make two sequential calls a
// fan-out.
func Turns(calls []Call) []Turn {
	cs := slices.Clone(calls)
	slices.SortStableFunc(cs, func(a, b Call) int {
		if a.Start != b.Start {
			return cmp.Compare(a.Start, b.Start)
		}
		return cmp.Compare(a.End, b.End)
	})
	var turns []Turn
	for _, c := range cs {
		if n := len(turns); n > 0 && c.Start < turns[n-1].joinBy {
			t := &turns[n-1]
			t.Calls = append(t.Calls, c)
			t.End = max(t.End, c.End)
			t.joinBy = max(t.joinBy, joinBy(c))
			continue
		}
		if n := len(turns); n > 0 {
			// c was made after the turn's calls returned (past joinBy):
			// an estimated end later than c's start was late.
			turns[n-1].End = min(turns[n-1].End, c.Start)
		}
		turns = append(turns, Turn{Calls: []Call{c}, Start: c.Start, End: c.End, joinBy: joinBy(c)})
	}
	return turns
}

// joinBy is the time before which a call starting is made while c is
// outstanding (see Turns).
func joinBy(c Call) int64 {
	if c.EndEstimated {
		return c.Start + (c.End-c.Start)/2
	}
	return c.End
}

// Plan is the session's call plan: a turn per set of overlapping calls,
// each call's tokens and record as logged, and after each turn but the
// last the time from its last answer to the next turn's first call (tool
// time measured end to start: whatever the agent did between, tools,
// its own code, a person's reply, counts). It also returns the model of
// most calls (ties: the name first in byte order).
func (s *Session) Plan() (*workloads.CallPlan, string) {
	turns := Turns(s.Calls)
	p := &workloads.CallPlan{Turns: make([]workloads.PlanTurn, len(turns))}
	count := map[string]int{}
	for i, t := range turns {
		pt := &p.Turns[i]
		for _, c := range t.Calls {
			pt.AddCall(workloads.PlanCall{In: c.In, Out: c.Out}, c.CallRecord)
			count[c.Model]++
		}
		if i+1 < len(turns) {
			pt.Tool = time.Duration(turns[i+1].Start - t.End)
		}
	}
	model, best := "", -1
	for m, n := range count {
		if n > best || (n == best && m < model) {
			model, best = m, n
		}
	}
	return p, model
}

// Problem is a record the importer could not use: where (FILE:LINE, or
// FILE:MEMBER for a zip member, with the field path) and why.
type Problem = field.Error

// problem makes a Problem.
func problem(file string, line int, path, format string, args ...any) *Problem {
	return &Problem{File: file, Line: line, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// member names a zip member in a Problem's File.
func member(file, name string) string { return file + ":" + name }

// Sink receives what a reader finds: each usable session, and each record
// it could not use.
type Sink struct {
	Session func(*Session)
	Skip    func(*Problem)
	// Note receives facts about usable records worth saying (retries,
	// failed tools): not problems, but nothing to keep quiet either.
	Note func(string)
}

func (s Sink) note(format string, args ...any) {
	if s.Note != nil {
		s.Note(fmt.Sprintf(format, args...))
	}
}

// parseTime reads an RFC 3339 time (with or without fraction) as Unix ns.
func parseTime(s string) (int64, error) {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("want an RFC 3339 time, got %q", s)
	}
	// UnixNano is undefined outside about 1678–2262: such a time would
	// become an arbitrary arrival.
	if y := t.Year(); y < 1678 || y > 2261 {
		return 0, fmt.Errorf("%s is outside the years 1678 to 2261", strings.TrimSpace(s))
	}
	return t.UnixNano(), nil
}

// secondsNs converts seconds to ns, rounding; s is within durationNs's
// bounds.
func secondsNs(s float64) int64 { return int64(s*1e9 + 0.5) }

// durationNs reads a recorded duration in seconds as ns; a non-empty
// string says why it cannot be one: negative, or past
// workloads.MaxDuration (1e300 would overflow the conversion).
func durationNs(s float64) (int64, string) {
	switch {
	case math.IsNaN(s) || s < 0:
		return 0, fmt.Sprintf("%g s is negative", s)
	case s > workloads.MaxDuration.Seconds():
		return 0, fmt.Sprintf("%g s is longer than %g s (a year, the longest span a trace holds)", s, workloads.MaxDuration.Seconds())
	}
	return secondsNs(s), ""
}
