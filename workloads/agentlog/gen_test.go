package agentlog

import (
	"archive/zip"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalsched/lab/workloads"
)

// The test helpers below write logs of each format from a specJob: a job
// laid out by hand, turn by turn, whose plan and arrival the test states
// from the layout itself (wantPlan), not through the importer's grouping.

// base is the wall-clock time of offset 0 in the generated logs.
var base = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

type specCall struct {
	at, dur              int64 // ms from the turn's start
	in, out, cr, cw, max int
	model                string // "" = the job's
}

type specTurn struct {
	calls []specCall // in order of start
	gap   int64      // ms from the turn's last answer to the next turn's first call
}

type specJob struct {
	id    string
	model string
	start int64 // ms from base: the job's start (before its first call)
	lead  int64 // ms from the start to the first call
	turns []specTurn
}

// abs is a call laid out on the clock.
type abs struct {
	specCall
	start, end time.Time
}

// layout places the calls: turn k starts gap ms after turn k-1's latest end.
func (j specJob) layout() [][]abs {
	t := j.start + j.lead
	var out [][]abs
	for _, tr := range j.turns {
		var calls []abs
		end := t
		for _, c := range tr.calls {
			if c.model == "" {
				c.model = j.model
			}
			s, e := t+c.at, t+c.at+c.dur
			calls = append(calls, abs{c, ms(s), ms(e)})
			end = max(end, e)
		}
		out = append(out, calls)
		t = end + tr.gap
	}
	return out
}

// end is the job's last answer.
func (j specJob) end() time.Time {
	l := j.layout()
	e := time.Time{}
	for _, c := range l[len(l)-1] {
		if c.end.After(e) {
			e = c.end
		}
	}
	return e
}

func ms(v int64) time.Time { return base.Add(time.Duration(v) * time.Millisecond) }

// wantPlan is the plan the layout describes: a turn per spec turn, the
// gap as tool time after every turn but the last.
func (j specJob) wantPlan() *workloads.CallPlan {
	p := &workloads.CallPlan{}
	for i, tr := range j.turns {
		var pt workloads.PlanTurn
		anyRecord := false
		for _, c := range tr.calls {
			pt.Calls = append(pt.Calls, workloads.PlanCall{In: c.in, Out: c.out})
			anyRecord = anyRecord || c.cr != 0 || c.cw != 0 || c.max != 0
		}
		if anyRecord {
			for _, c := range tr.calls {
				pt.Recorded = append(pt.Recorded, workloads.CallRecord{CacheRead: c.cr, CacheWrite: c.cw, MaxTokens: c.max})
			}
		}
		if i+1 < len(j.turns) {
			pt.Tool = time.Duration(tr.gap) * time.Millisecond
		}
		p.Turns = append(p.Turns, pt)
	}
	return p
}

func rfc(t time.Time) string { return t.Format(time.RFC3339Nano) }

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// inspectStyle picks the field names of the log.
type inspectStyle struct {
	old bool // no completed (end = timestamp + output.time), no started_at, OpenAI-style usage without total_tokens
}

type inspectExtra struct {
	failedCall, noUsage bool // add a failed model event and one without usage
	failedTool          bool // the first tool event failed
	sandboxOutput       bool // a sandbox event whose output is a string
}

// inspectSampleJSON is a sample of the job, as Inspect writes one.
func inspectSampleJSON(j specJob, sampleID any, st inspectStyle, x inspectExtra) map[string]any {
	var events []map[string]any
	events = append(events, map[string]any{"event": "sample_init", "timestamp": rfc(ms(j.start - 3600_000))}) // queued an hour before
	if x.sandboxOutput {
		events = append(events, map[string]any{"event": "sandbox", "timestamp": rfc(ms(j.start)), "output": "ok"})
	}
	layout := j.layout()
	for k, turn := range layout {
		for _, c := range turn {
			usage := map[string]any{"output_tokens": c.out, "input_tokens_cache_read": c.cr}
			if st.old {
				usage["input_tokens"] = c.in // OpenAI: input includes cache reads
			} else {
				usage["input_tokens"] = c.in - c.cr - c.cw // Anthropic: input excludes cache reads and writes
				usage["input_tokens_cache_write"] = c.cw
				usage["total_tokens"] = c.in + c.out
			}
			e := map[string]any{"event": "model", "timestamp": rfc(c.start), "model": c.model, "retries": 1,
				"output": map[string]any{"time": c.end.Sub(c.start).Seconds(), "usage": usage, "choices": []any{}},
				"config": map[string]any{}}
			if c.max != 0 {
				e["config"] = map[string]any{"max_tokens": c.max}
			}
			if !st.old {
				e["completed"] = rfc(c.end)
				e["working_time"] = c.end.Sub(c.start).Seconds() / 2
			}
			events = append(events, e)
		}
		if k+1 < len(layout) {
			last := turn[0].end
			for _, c := range turn {
				if c.end.After(last) {
					last = c.end
				}
			}
			tool := map[string]any{"event": "tool", "timestamp": rfc(last.Add(time.Millisecond)), "function": "bash",
				"completed": rfc(layout[k+1][0].start.Add(-time.Millisecond)), "failed": x.failedTool && k == 0}
			events = append(events, tool)
		}
	}
	if x.failedCall {
		events = append(events, map[string]any{"event": "model", "timestamp": rfc(ms(j.start + j.lead)), "model": j.model,
			"error": "429 rate limited", "output": map[string]any{"time": 1.0}})
	}
	if x.noUsage {
		events = append(events, map[string]any{"event": "model", "timestamp": rfc(ms(j.start + j.lead)), "model": j.model,
			"completed": rfc(ms(j.start + j.lead + 5)), "output": map[string]any{"choices": []any{}}})
	}
	end := j.end()
	events = append(events, map[string]any{"event": "score", "timestamp": rfc(end)})
	s := map[string]any{"id": sampleID, "epoch": 1, "events": events, "total_time": end.Sub(ms(j.start)).Seconds()}
	if !st.old {
		s["started_at"] = rfc(ms(j.start))
	}
	return s
}

func inspectHeaderJSON(task, evalID, model string) map[string]any {
	return map[string]any{"version": 2, "status": "success",
		"eval": map[string]any{"eval_id": evalID, "run_id": "run-1", "task": task, "model": model,
			"config": map[string]any{"max_samples": 4, "max_sandboxes": 2}},
		"plan": map[string]any{"config": map[string]any{"max_connections": 3}}}
}

// writeInspectEval writes a .eval zip: header.json, a member per sample,
// and extra members (name → content) as given.
func writeInspectEval(t *testing.T, path string, header map[string]any, samples map[string]map[string]any, extra map[string]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	put := func(name string, b []byte) {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	hb, _ := json.Marshal(header)
	put("header.json", hb)
	for name, s := range samples {
		b, _ := json.Marshal(s)
		put(name, b)
	}
	for name, s := range extra {
		put(name, []byte(s))
	}
	put("summaries.json", []byte("[]"))
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// otlpStyle picks the attribute names and the id encoding.
type otlpStyle struct {
	old    bool // gen_ai.system, gen_ai.usage.prompt_tokens / completion_tokens
	base64 bool // ids as base64
	group  string
}

func otlpID(b []byte, st otlpStyle) string {
	if st.base64 {
		return base64.StdEncoding.EncodeToString(b)
	}
	return hex.EncodeToString(b)
}

func kvS(k, v string) map[string]any {
	return map[string]any{"key": k, "value": map[string]any{"stringValue": v}}
}
func kvI(k string, v int) map[string]any {
	return map[string]any{"key": k, "value": map[string]any{"intValue": fmt.Sprint(v)}}
}

func nano(t time.Time) string { return fmt.Sprint(t.UnixNano()) }

// otlpSpans are the spans of the job. group: "agent" puts every call under
// an invoke_agent span (through a plain intermediate span), "conv" gives
// each call the conversation id, "trace" only a shared trace id.
func otlpSpans(j specJob, traceByte byte, st otlpStyle) []map[string]any {
	trace := make([]byte, 16)
	trace[0], trace[15] = traceByte, 0xab
	n := byte(0)
	newID := func() []byte {
		n++
		return []byte{traceByte, n, 0, 0, 0, 0, 0, 1}
	}
	var spans []map[string]any
	agentID, stepID := newID(), newID()
	parent := ""
	if st.group == "agent" {
		spans = append(spans, map[string]any{"traceId": otlpID(trace, st), "spanId": otlpID(agentID, st), "name": "invoke_agent coder",
			"startTimeUnixNano": nano(ms(j.start)), "endTimeUnixNano": nano(j.end()),
			"attributes": []any{kvS("gen_ai.operation.name", "invoke_agent"), kvS("gen_ai.agent.name", "coder"), kvS("gen_ai.conversation.id", j.id)}})
		spans = append(spans, map[string]any{"traceId": otlpID(trace, st), "spanId": otlpID(stepID, st), "parentSpanId": otlpID(agentID, st),
			"name": "step", "startTimeUnixNano": nano(ms(j.start)), "endTimeUnixNano": nano(j.end())})
		parent = otlpID(stepID, st)
	}
	layout := j.layout()
	for k, turn := range layout {
		for _, c := range turn {
			at := []any{kvS("gen_ai.request.model", c.model)}
			if st.old {
				at = append(at, kvS("gen_ai.system", "openai"), kvI("gen_ai.usage.prompt_tokens", c.in), kvI("gen_ai.usage.completion_tokens", c.out))
			} else {
				at = append(at, kvS("gen_ai.operation.name", "chat"), kvS("gen_ai.provider.name", "anthropic"),
					kvI("gen_ai.usage.input_tokens", c.in), kvI("gen_ai.usage.output_tokens", c.out))
			}
			if c.cr != 0 {
				at = append(at, kvI("gen_ai.usage.cache_read.input_tokens", c.cr))
			}
			if c.cw != 0 {
				at = append(at, kvI("gen_ai.usage.cache_creation.input_tokens", c.cw))
			}
			if c.max != 0 {
				at = append(at, kvI("gen_ai.request.max_tokens", c.max))
			}
			if st.group == "conv" {
				at = append(at, kvS("gen_ai.conversation.id", j.id))
			}
			sp := map[string]any{"traceId": otlpID(trace, st), "spanId": otlpID(newID(), st), "name": "chat " + c.model,
				"startTimeUnixNano": nano(c.start), "endTimeUnixNano": nano(c.end), "attributes": at, "kind": 3}
			if parent != "" {
				sp["parentSpanId"] = parent
			}
			spans = append(spans, sp)
		}
		if k+1 < len(layout) {
			sp := map[string]any{"traceId": otlpID(trace, st), "spanId": otlpID(newID(), st), "name": "execute_tool bash",
				"startTimeUnixNano": nano(turn[0].end), "endTimeUnixNano": nano(layout[k+1][0].start),
				"attributes": []any{kvS("gen_ai.operation.name", "execute_tool"), kvS("gen_ai.tool.name", "bash")},
				"status":     map[string]any{"code": 2}}
			if st.group == "conv" {
				sp["attributes"] = append(sp["attributes"].([]any), kvS("gen_ai.conversation.id", j.id))
			}
			if parent != "" {
				sp["parentSpanId"] = parent
			}
			spans = append(spans, sp)
		}
	}
	return spans
}

func otlpRequest(spans []map[string]any) map[string]any {
	return map[string]any{"resourceSpans": []any{map[string]any{
		"resource":   map[string]any{"attributes": []any{kvS("service.name", "agent")}},
		"scopeSpans": []any{map[string]any{"scope": map[string]any{"name": "genai"}, "spans": spans}}}}}
}

// traceLabLines are a session's rounds, one JSON object each: claude-style
// cache fields, or codex-style prefix_tokens.
func traceLabLines(j specJob, codex bool) []string {
	var lines []string
	layout := j.layout()
	for k, turn := range layout {
		c := turn[0] // a round is one call
		in := "tool_result"
		if k == 0 {
			in = "user_message"
		}
		r := map[string]any{"session_id": j.id, "round_index": k, "model": c.model, "project": "p",
			"input_tokens_total": c.in, "output_tokens": c.out,
			"timing_events": []any{
				map[string]any{"event_type": in, "timestamp": rfc(c.start)},
				map[string]any{"event_type": "reasoning", "timestamp": rfc(c.start.Add(c.end.Sub(c.start) / 2))},
				map[string]any{"event_type": "text", "timestamp": rfc(c.end)},
			}}
		if codex {
			r["prefix_tokens"] = c.cr
			r["claude_cache_read_input_tokens"] = nil
		} else {
			r["claude_cache_read_input_tokens"] = c.cr
			r["claude_cache_creation_input_tokens"] = c.cw
		}
		if k+1 < len(layout) {
			r["tools"] = []any{map[string]any{"tool_name": "Bash", "emitted_at": rfc(c.end), "result_at": rfc(layout[k+1][0].start), "is_error": k == 0}}
		}
		b, _ := json.Marshal(r)
		lines = append(lines, string(b))
	}
	return lines
}

func writeLines(t *testing.T, path string, lines []string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func tempPath(t *testing.T, name string) string { return filepath.Join(t.TempDir(), name) }
