package agentlog

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/evalsched/lab/internal/field"
)

// traceLabRound is the part of a round_trace.jsonl line the importer reads.
type traceLabRound struct {
	SessionID   *string `json:"session_id"`
	RoundIndex  *int    `json:"round_index"`
	Model       string  `json:"model"`
	Provider    string  `json:"provider"`
	Project     string  `json:"project"`
	InputTotal  *int    `json:"input_tokens_total"`
	Prefix      *int    `json:"prefix_tokens"`
	CacheRead   *int    `json:"claude_cache_read_input_tokens"`
	CacheWrite  *int    `json:"claude_cache_creation_input_tokens"`
	Output      *int    `json:"output_tokens"`
	MaxTokens   *int    `json:"max_tokens"`
	TimingEvent []struct {
		Type      string `json:"event_type"`
		Timestamp string `json:"timestamp"`
	} `json:"timing_events"`
	Tools []struct {
		Name      string `json:"tool_name"`
		EmittedAt string `json:"emitted_at"`
		ResultAt  string `json:"result_at"`
		IsError   *bool  `json:"is_error"`
	} `json:"tools"`
}

// inputEvents are the timing events that feed a round (what the model
// reads); every other event is the model's output.
var inputEvents = map[string]bool{"user_message": true, "tool_result": true}

type traceLabSession struct {
	sess   *Session
	rounds map[int]string // round index → where, to refuse a repeat
}

// readTraceLabFiles reads round traces, a round a line, and groups the
// rounds by session once all are read (a session's lines need not be
// together). Memory: the compact calls of every session.
func readTraceLabFiles(names []string, sink Sink) error {
	sessions := map[string]*traceLabSession{}
	var order []string
	records := 0
	for _, name := range names {
		f, err := openFile(name)
		if err != nil {
			return err
		}
		err = readTraceLab(f, name, f.z != nil, &records, sink, func(id string) *traceLabSession {
			s := sessions[id]
			if s == nil {
				s = &traceLabSession{sess: &Session{ID: id, Batch: baseName(name), Where: name}, rounds: map[int]string{}}
				sessions[id] = s
				order = append(order, id)
			}
			return s
		})
		f.Close()
		if err != nil {
			return err
		}
	}
	for _, id := range order {
		s := sessions[id].sess
		slices.SortStableFunc(s.Calls, func(a, b Call) int { return cmp.Compare(a.Start, b.Start) })
		s.Start = minStart(s.Calls)
		sink.Session(s)
	}
	return nil
}

// readTraceLab reads one file's rounds; records counts the rounds of the
// import so far.
func readTraceLab(in io.Reader, name string, gz bool, records *int, sink Sink, session func(string) *traceLabSession) error {
	br, err := textInput(in, name, gz)
	if err != nil {
		return err
	}
	// Until a record is a round, its skips are held: a file none of whose
	// first traceLabProbe records is one is refused once, not a line each.
	var held []*Problem
	seen, rounds := 0, 0
	lineSink := sink
	lineSink.Skip = func(p *Problem) {
		if rounds == 0 {
			held = append(held, p)
		} else {
			sink.Skip(p)
		}
	}
	notRounds := func() error {
		return &field.Error{File: name, Msg: fmt.Sprintf("not a TraceLab round trace: none of its first %d records is a round (an object with session_id, round_index, model, input_tokens_total and output_tokens); line %d: %s: %s",
			seen, held[0].Line, held[0].Path, held[0].Msg)}
	}
	for line := 1; ; line++ {
		b, err := readLine(br, name, line)
		if len(bytes.TrimSpace(b)) > 0 {
			if *records++; *records > maxLogRecords {
				return tooMany(name, line)
			}
			seen++
			if traceLabLine(b, name, line, lineSink, session) && rounds == 0 {
				rounds++
				for _, p := range held {
					sink.Skip(p)
				}
				held = nil
			}
			if rounds == 0 && seen == traceLabProbe {
				return notRounds()
			}
		}
		if err == io.EOF {
			if rounds == 0 && seen > 0 {
				return notRounds()
			}
			return nil
		}
		if err != nil {
			var fe *field.Error
			if errors.As(err, &fe) {
				return err
			}
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
}

// traceLabProbe is how many records of a file are read, at most, for a
// round before the file is refused as not a round trace.
const traceLabProbe = 10

// traceLabLine reads one round into its session, or skips it; round says
// whether the record is a round at all (its required fields there), used
// or not.
func traceLabLine(b []byte, name string, line int, sink Sink, session func(string) *traceLabSession) (round bool) {
	bad := func(path, format string, args ...any) { sink.Skip(problem(name, line, path, format, args...)) }
	var r traceLabRound
	if err := json.Unmarshal(b, &r); err != nil {
		bad("record", "%s", jsonMsg(err))
		return false
	}
	switch {
	case r.SessionID == nil || *r.SessionID == "":
		bad("session_id", "missing")
		return false
	case r.RoundIndex == nil:
		bad("round_index", "missing")
		return false
	case r.Model == "":
		bad("model", "missing")
		return false
	case r.InputTotal == nil:
		bad("input_tokens_total", "missing")
		return false
	case r.Output == nil:
		bad("output_tokens", "missing")
		return false
	}
	traceLabRoundRead(&r, name, line, bad, session)
	return true
}

func traceLabRoundRead(r *traceLabRound, name string, line int, bad func(path, format string, args ...any), session func(string) *traceLabSession) {
	var start, end, first int64
	for i, e := range r.TimingEvent {
		t, err := parseTime(e.Timestamp)
		if err != nil {
			bad(fmt.Sprintf("timing_events[%d].timestamp", i), "%v", err)
			return
		}
		if first == 0 || t < first {
			first = t
		}
		if inputEvents[e.Type] {
			start = max(start, t)
		} else {
			end = max(end, t)
		}
	}
	if start == 0 {
		start = first // no input event: the round's first event
	}
	if end == 0 || end < start {
		bad("timing_events", "no output event after the round's input (want reasoning, text, tool_call or usage_report after user_message or tool_result)")
		return
	}
	c := Call{Start: start, End: end, Model: r.Model, Provider: r.Provider, In: *r.InputTotal, Out: *r.Output}
	// Claude Code records its cache reads and writes; Codex records the
	// cached prefix only (prefix_tokens), and no writes.
	switch {
	case r.CacheRead != nil:
		c.CacheRead = *r.CacheRead
	case r.Prefix != nil:
		c.CacheRead = *r.Prefix
	}
	c.CacheWrite, c.MaxTokens = deref(r.CacheWrite), deref(r.MaxTokens)
	if c.In < 0 || c.Out < 0 || c.CacheRead < 0 || c.CacheWrite < 0 || c.CacheRead+c.CacheWrite > c.In {
		bad("record", "inconsistent tokens (input %d, output %d, cache read %d, cache write %d)", c.In, c.Out, c.CacheRead, c.CacheWrite)
		return
	}
	var tools []Tool
	for i, t := range r.Tools {
		ts, err := parseTime(t.EmittedAt)
		if err != nil {
			bad(fmt.Sprintf("tools[%d].emitted_at", i), "%v", err)
			return
		}
		te := ts
		if t.ResultAt != "" {
			if te, err = parseTime(t.ResultAt); err != nil {
				bad(fmt.Sprintf("tools[%d].result_at", i), "%v", err)
				return
			}
			if te < ts {
				bad(fmt.Sprintf("tools[%d].result_at", i), "before emitted_at (a negative duration)")
				return
			}
		}
		tools = append(tools, Tool{Start: ts, End: te, Name: t.Name, Failed: t.IsError != nil && *t.IsError})
	}
	s := session(*r.SessionID)
	if prev, dup := s.rounds[*r.RoundIndex]; dup {
		bad("round_index", "round %d of session %s repeated (first at %s)", *r.RoundIndex, *r.SessionID, prev)
		return
	}
	s.rounds[*r.RoundIndex] = fmt.Sprintf("%s:%d", name, line)
	if s.sess.Project == "" {
		s.sess.Project = r.Project
		if s.sess.Project == "" {
			s.sess.Project = r.Provider
		}
		if s.sess.Project == "" {
			s.sess.Project = "tracelab"
		}
	}
	s.sess.Calls = append(s.sess.Calls, c)
	s.sess.Tools = append(s.sess.Tools, tools...)
}
