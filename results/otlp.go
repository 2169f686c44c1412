package results

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"io"
	"strconv"
	"time"
)

// A run's jobs as OpenTelemetry GenAI spans (docs/reference/outputs.md,
// "otlp"): the world hands each job over as it ends (SpanSink), and
// OTLPWriter writes it at once as one OTLP/JSON ExportTraceServiceRequest
// line, so the file streams and nothing of a finished job is kept.

// SpanSink receives each job of a run as it ends. The job and its slices
// are the caller's again once Job returns.
type SpanSink interface {
	Job(j *SpanJob)
}

// SpanJob is one job's life, times in microseconds of virtual time.
type SpanJob struct {
	ID                      int64 // the run's job id (arrival order)
	Account, Project, Batch string
	Model                   string
	Grading, Failed         bool
	Arrival, Admitted       int64 // arrival; container taken
	Ready, End              int64 // container started; job done
	Calls                   []SpanCall
	Tools                   []SpanTool
}

// SpanCall is one model call of a job: made at Start (its turn's start),
// answered or given up at End.
type SpanCall struct {
	Turn                  int // 1-based
	Start, End            int64
	In, Out, MaxTokens    int
	CacheRead, CacheWrite int // of In, at the accepted try
	Failed                bool
	Events                []SpanEvent
}

// SpanTool is the tool step after a turn.
type SpanTool struct {
	Turn       int
	Start, End int64
}

// SpanEventKind is what happened to a call's try.
type SpanEventKind uint8

// The events of a call.
const (
	EventDequeued    SpanEventKind = iota + 1 // left the gateway queue for a try; Value is the wait in µs
	EventRateLimited                          // the provider answered 429
	EventKeyRejected                          // the gateway key's own budget refused the try
	EventOutage                               // the provider was down
	EventAccepted                             // the provider took the try
	EventGaveUp                               // no more tries
)

var spanEventNames = [...]string{
	EventDequeued:    "gateway.dequeued",
	EventRateLimited: "provider.rate_limited",
	EventKeyRejected: "gateway.key_rejected",
	EventOutage:      "provider.outage",
	EventAccepted:    "provider.accepted",
	EventGaveUp:      "gateway.gave_up",
}

func (k SpanEventKind) String() string {
	if int(k) < len(spanEventNames) && spanEventNames[k] != "" {
		return spanEventNames[k]
	}
	return "SpanEventKind(" + strconv.Itoa(int(k)) + ")"
}

// SpanEvent is one event of a call's tries.
type SpanEvent struct {
	T       int64 // µs
	Kind    SpanEventKind
	Attempt int
	Value   int64 // EventDequeued: the queue wait in µs
}

// OTLPEpoch is the instant virtual time zero is written as (the same
// instant policies are shown, sim.Epoch).
var OTLPEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// OTLPRun names the run whose jobs an OTLPWriter writes.
type OTLPRun struct {
	Label    string // the policy or variant: the resource's service.name
	Scenario string
	Seed     uint64
	Index    int // the run's place in the command's runs, in the ids
}

// OTLPWriter writes jobs as OTLP/JSON lines (the OTLP file exporter's
// format: one ExportTraceServiceRequest a line), one resource per line
// naming the run. It keeps the first write error for Close.
type OTLPWriter struct {
	w    *bufio.Writer
	run  OTLPRun
	res  []byte // the resource object, the same on every line
	buf  []byte
	err  error
	seed uint64 // of the ids: the run's seed and index mixed
}

// NewOTLPWriter writes run's jobs to w.
func NewOTLPWriter(w io.Writer, run OTLPRun) *OTLPWriter {
	o := &OTLPWriter{w: bufio.NewWriterSize(w, 64<<10), run: run,
		seed: mix64(mix64(run.Seed) ^ uint64(run.Index+1))}
	b := append([]byte(nil), `{"attributes":[`...)
	b = attrStr(b, "service.name", run.Label, true)
	b = attrStr(b, "evalsched.run", run.Label, false)
	b = attrStr(b, "evalsched.scenario", run.Scenario, false)
	b = attrInt(b, "evalsched.seed", int64(run.Seed)) // as OTLP's int64: the bits of a seed above 2^63 wrap
	o.res = append(b, `]}`...)
	return o
}

// Close flushes the writer and returns the first error it met.
func (o *OTLPWriter) Close() error {
	if o.err == nil {
		o.err = o.w.Flush()
	}
	return o.err
}

// ConversationID is the gen_ai.conversation.id of a run's job.
func ConversationID(label string, job int64) string {
	return label + "/job-" + strconv.FormatInt(job, 10)
}

// mix64 is SplitMix64's finaliser: ids derived from counters look random
// (tools that index ids expect them spread) but are fixed by their inputs.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Span ids within a job's trace: the job span 0, call k 1+2k, the tool
// step after turn t 2+2t; never 0 (an invalid id), since mixed.
func (o *OTLPWriter) spanID(job int64, n uint64) uint64 {
	id := mix64(o.seed ^ mix64(uint64(job)) ^ mix64(n+0x5350414e))
	if id == 0 {
		id = 1
	}
	return id
}

func appendHex64(b []byte, v uint64) []byte {
	var x [8]byte
	for i := range x {
		x[i] = byte(v >> (56 - 8*i))
	}
	return hex.AppendEncode(b, x[:])
}

// Job writes one job as a line: its invoke_agent span, a chat span per
// call and an execute_tool span per tool step.
func (o *OTLPWriter) Job(j *SpanJob) {
	if o.err != nil {
		return
	}
	b := append(o.buf[:0], `{"resourceSpans":[{"resource":`...)
	b = append(b, o.res...)
	b = append(b, `,"scopeSpans":[{"scope":{"name":"evalsched-lab"},"spans":[`...)
	hi := mix64(o.seed ^ mix64(uint64(j.ID)))
	lo := mix64(hi ^ 0x7472616365) // "trace"
	if hi == 0 && lo == 0 {
		lo = 1
	}
	trace := appendHex64(appendHex64(nil, hi), lo)
	root := o.spanID(j.ID, 0)
	conv := ConversationID(o.run.Label, j.ID)

	b = spanHead(b, trace, root, 0, "invoke_agent "+j.Project, j.Arrival, j.End)
	b = attrStr(b, "gen_ai.operation.name", "invoke_agent", true)
	b = attrStr(b, "gen_ai.agent.name", j.Project, false)
	b = attrStr(b, "gen_ai.conversation.id", conv, false)
	b = attrStr(b, "gen_ai.request.model", j.Model, false)
	b = attrStr(b, "evalsched.account", j.Account, false)
	b = attrStr(b, "evalsched.batch", j.Batch, false)
	b = attrInt(b, "evalsched.job", j.ID)
	b = attrBool(b, "evalsched.grading", j.Grading)
	b = append(b, `],"events":[`...)
	b = event(b, "container.admitted", j.Admitted, true)
	b = attrIntAt(b, "evalsched.wait_us", j.Admitted-j.Arrival, true)
	b = append(b, `]}`...)
	b = event(b, "container.ready", j.Ready, false)
	b = attrIntAt(b, "evalsched.startup_us", j.Ready-j.Admitted, true)
	b = append(b, `]}]`...)
	b = status(b, j.Failed, "a call could never fit its quota")
	for k := range j.Calls {
		c := &j.Calls[k]
		b = append(b, ',')
		b = spanHead(b, trace, o.spanID(j.ID, 1+2*uint64(k)), root, "chat "+j.Model, c.Start, c.End)
		b = attrStr(b, "gen_ai.operation.name", "chat", true)
		b = attrStr(b, "gen_ai.provider.name", "evalsched.simulated", false)
		b = attrStr(b, "gen_ai.request.model", j.Model, false)
		b = attrStr(b, "gen_ai.conversation.id", conv, false)
		if c.MaxTokens > 0 {
			b = attrInt(b, "gen_ai.request.max_tokens", int64(c.MaxTokens))
		}
		b = attrInt(b, "gen_ai.usage.input_tokens", int64(c.In))
		b = attrInt(b, "gen_ai.usage.output_tokens", int64(c.Out))
		b = attrInt(b, "gen_ai.usage.cache_read.input_tokens", int64(c.CacheRead))
		b = attrInt(b, "gen_ai.usage.cache_creation.input_tokens", int64(c.CacheWrite))
		b = attrInt(b, "evalsched.turn", int64(c.Turn))
		if c.Failed {
			b = attrStr(b, "error.type", "evalsched.gave_up", false)
		}
		b = append(b, `],"events":[`...)
		for i, e := range c.Events {
			b = event(b, e.Kind.String(), e.T, i == 0)
			b = attrIntAt(b, "evalsched.attempt", int64(e.Attempt), true)
			if e.Kind == EventDequeued {
				b = attrInt(b, "evalsched.wait_us", e.Value)
			}
			b = append(b, `]}`...)
		}
		b = append(b, ']')
		b = status(b, c.Failed, "given up after its tries")
	}
	for _, t := range j.Tools {
		b = append(b, ',')
		b = spanHead(b, trace, o.spanID(j.ID, 2+2*uint64(t.Turn)), root, "execute_tool", t.Start, t.End)
		b = attrStr(b, "gen_ai.operation.name", "execute_tool", true)
		b = attrStr(b, "gen_ai.tool.name", "tool_step", false)
		b = attrInt(b, "evalsched.turn", int64(t.Turn))
		b = append(b, `],"events":[]`...)
		b = status(b, false, "")
	}
	b = append(b, "]}]}]}\n"...)
	o.buf = b
	_, o.err = o.w.Write(b)
}

// spanHead opens a span up to its attributes' '['. Kind 1 is INTERNAL
// (the job), 3 CLIENT (a call or tool step, made by the agent).
func spanHead(b, trace []byte, id, parent uint64, name string, start, end int64) []byte {
	b = append(b, `{"traceId":"`...)
	b = append(b, trace...)
	b = append(b, `","spanId":"`...)
	b = appendHex64(b, id)
	b = append(b, '"')
	kind := "1"
	if parent != 0 {
		b = append(b, `,"parentSpanId":"`...)
		b = appendHex64(b, parent)
		b = append(b, '"')
		kind = "3"
	}
	b = append(b, `,"name":`...)
	b = appendJSONString(b, name)
	b = append(b, `,"kind":`...)
	b = append(b, kind...)
	b = append(b, `,"startTimeUnixNano":"`...)
	b = appendUnixNano(b, start)
	b = append(b, `","endTimeUnixNano":"`...)
	b = appendUnixNano(b, end)
	return append(b, `","attributes":[`...)
}

func status(b []byte, failed bool, msg string) []byte {
	if !failed {
		return append(b, `,"status":{}}`...)
	}
	b = append(b, `,"status":{"code":2,"message":`...)
	b = appendJSONString(b, msg)
	return append(b, `}}`...)
}

func event(b []byte, name string, t int64, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, `{"timeUnixNano":"`...)
	b = appendUnixNano(b, t)
	b = append(b, `","name":`...)
	b = appendJSONString(b, name)
	return append(b, `,"attributes":[`...)
}

func appendUnixNano(b []byte, us int64) []byte {
	return strconv.AppendInt(b, OTLPEpoch.UnixNano()+us*1000, 10)
}

func attrStr(b []byte, key, v string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, `{"key":"`...)
	b = append(b, key...)
	b = append(b, `","value":{"stringValue":`...)
	b = appendJSONString(b, v)
	return append(b, `}}`...)
}

// attrInt writes an intValue as OTLP/JSON does (a string: int64).
func attrInt(b []byte, key string, v int64) []byte { return attrIntAt(b, key, v, false) }

func attrIntAt(b []byte, key string, v int64, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, `{"key":"`...)
	b = append(b, key...)
	b = append(b, `","value":{"intValue":"`...)
	b = strconv.AppendInt(b, v, 10)
	return append(b, `"}}`...)
}

func attrBool(b []byte, key string, v bool) []byte {
	b = append(b, `,{"key":"`...)
	b = append(b, key...)
	b = append(b, `","value":{"boolValue":`...)
	b = strconv.AppendBool(b, v)
	return append(b, `}}`...)
}

func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}
