package agentlog

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evalsched/lab/workloads"
	"github.com/google/go-cmp/cmp"
)

// jobA has parallel calls: three whose intervals chain into one turn (the
// first and third do not overlap each other), then single calls, the last
// two touching (the second starts when the first ends: two turns).
var jobA = specJob{id: "A", model: "anthropic/claude-x", start: 0, lead: 500, turns: []specTurn{
	{calls: []specCall{
		{at: 0, dur: 1000, in: 1000, out: 100, cr: 800, cw: 100, max: 4096},
		{at: 200, dur: 1500, in: 1000, out: 50, cr: 900, max: 4096},
		{at: 1600, dur: 400, in: 1100, out: 60, cr: 900, cw: 50, max: 4096},
	}, gap: 3000},
	{calls: []specCall{{at: 0, dur: 800, in: 2200, out: 300, cr: 2000, cw: 150, max: 4096}}, gap: 1200},
	{calls: []specCall{{at: 0, dur: 500, in: 2600, out: 40}}, gap: 0},
	{calls: []specCall{{at: 0, dur: 300, in: 2700, out: 20}}},
}}

// jobB is in an older style: no cache writes, two parallel calls in its
// second turn, no max_tokens.
var jobB = specJob{id: "B", model: "openai/gpt-y", start: 10_000, lead: 250, turns: []specTurn{
	{calls: []specCall{{at: 0, dur: 700, in: 500, out: 20}}, gap: 2500},
	{calls: []specCall{{at: 0, dur: 900, in: 700, out: 30, cr: 512}, {at: 100, dur: 900, in: 700, out: 35}}},
}}

// jobC and jobD are coding-agent sessions: a call per round.
var jobC = specJob{id: "claude:s1", model: "claude-opus", start: 1000, turns: []specTurn{
	{calls: []specCall{{dur: 4000, in: 30000, out: 900, cr: 27000, cw: 2000}}, gap: 19_291},
	{calls: []specCall{{dur: 3000, in: 35000, out: 1000, cr: 29000, cw: 6000}}, gap: 145},
	{calls: []specCall{{dur: 2000, in: 36000, out: 100, cr: 35000, cw: 900}}},
}}

var jobD = specJob{id: "codex:s2", model: "gpt-5.4", start: 500, turns: []specTurn{
	{calls: []specCall{{dur: 2000, in: 9000, out: 400, cr: 6912}}, gap: 1162},
	{calls: []specCall{{dur: 1500, in: 9900, out: 90, cr: 9600}}},
}}

// got is what a test compares of a job.
type got struct {
	ID      string
	Arrival time.Duration
	Model   string
	Plan    *workloads.CallPlan
}

func want(j specJob, id string, arrival int64, model string) got {
	return got{ID: id, Arrival: time.Duration(arrival) * time.Millisecond, Model: model, Plan: j.wantPlan()}
}

var testCatalogue = []string{"m1", "m2"}

// importAll runs the importer as the command does and returns the jobs and
// the skipped records as "FILE(base):LINE: PATH: MSG".
func importAll(t *testing.T, format Format, mapping map[string]string, paths ...string) ([]got, []string) {
	t.Helper()
	col, err := Collect(format, paths)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := col.Jobs(testCatalogue, mapping)
	if err != nil {
		t.Fatal(err)
	}
	var gs []got
	for _, j := range jobs {
		gs = append(gs, got{j.ID, j.Arrival, j.Model, j.Plan})
	}
	var skipped []string
	for _, p := range col.Skipped {
		q := *p
		dir := paths[0]
		if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
			dir = filepath.Dir(dir)
		}
		q.File = strings.TrimPrefix(q.File, dir+string(filepath.Separator))
		skipped = append(skipped, q.Error())
	}
	// The trace written must be a valid job trace of plan jobs.
	var b strings.Builder
	if err := WriteJobs(&b, jobs); err != nil {
		t.Fatal(err)
	}
	rep, err := workloads.ValidateTrace(strings.NewReader(b.String()), "out.jsonl", "jsonl", testCatalogue, map[string]*workloads.Behaviour{})
	if err != nil || len(rep.Errors) > 0 || rep.PlanJobs != len(jobs) {
		t.Fatalf("written trace: %v %v (%d plan jobs of %d)", err, rep.Errors, rep.PlanJobs, len(jobs))
	}
	checkStreamed(t, format, mapping, paths, col, b.String())
	return gs, skipped
}

// checkStreamed: Import, in memory or through sorts spilling every few
// records, writes the trace that Collect, Jobs and WriteJobs give, with
// the same problems and notes in the same order.
func checkStreamed(t *testing.T, format Format, mapping map[string]string, paths []string, col *Collection, trace string) {
	t.Helper()
	type result struct {
		Trace          string
		Skipped, Notes []string
		Summary        Summary
	}
	var want result
	want.Trace, want.Summary = trace, col.Summarise()
	for _, p := range col.Skipped {
		want.Skipped = append(want.Skipped, p.Error())
	}
	want.Notes = col.Notes
	for _, budget := range []int{0, 200} {
		var res result
		var b strings.Builder
		sum, n, err := Import(format, paths, ImportOptions{Catalogue: testCatalogue, Mapping: mapping, TempDir: t.TempDir(), SortBudget: budget,
			Skip: func(p *Problem) { res.Skipped = append(res.Skipped, p.Error()) },
			Note: func(s string) { res.Notes = append(res.Notes, s) }},
			func(write func(io.Writer) error) error { return write(&b) })
		if err != nil {
			t.Fatalf("Import (sort budget %d): %v", budget, err)
		}
		res.Trace, res.Summary = b.String(), sum
		if n != len(res.Skipped) {
			t.Errorf("Import counted %d skipped, reported %d", n, len(res.Skipped))
		}
		if diff := cmp.Diff(want, res); diff != "" {
			t.Errorf("Import (sort budget %d) against Collect, Jobs, WriteJobs (-want +got):\n%s", budget, diff)
		}
	}
}

// checkSkipped compares the skipped records with wanted prefixes (where
// and the start of the reason), one for one, in order.
func checkSkipped(t *testing.T, got, want []string) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = strings.HasPrefix(got[i], want[i])
	}
	if !ok {
		t.Errorf("skipped:\n  %s\nwant (prefixes):\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

var abMap = map[string]string{"anthropic/claude-x": "m1", "openai/gpt-y": "m2"}

// sampleLine is the line of the i-th sample's opening brace in a file
// json.MarshalIndent wrote with a one-space indent: samples sit at two.
func sampleLine(t *testing.T, path string, i int) int {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	inSamples, n := false, 0
	for k, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, ` "samples": [`) {
			inSamples = true
		} else if inSamples && l == "  {" {
			if n == i {
				return k + 1
			}
			n++
		}
	}
	t.Fatalf("no sample %d in %s", i, path)
	return 0
}

func TestInspectJSON(t *testing.T) {
	path := tempPath(t, "log.json")
	log := inspectHeaderJSON("task1", "ev1", "anthropic/claude-x")
	empty := map[string]any{"id": "C", "epoch": 1, "events": []any{map[string]any{"event": "sample_init", "timestamp": rfc(base)}}}
	log["samples"] = []any{
		inspectSampleJSON(jobA, "A", inspectStyle{}, inspectExtra{failedCall: true, noUsage: true, failedTool: true, sandboxOutput: true}),
		inspectSampleJSON(jobB, 2, inspectStyle{old: true}, inspectExtra{}),
		empty,
	}
	writeJSON(t, path, log)
	jobs, skipped := importAll(t, Inspect, abMap, path)
	wantJobs := []got{want(jobA, "ev1/task1/A/e1", 0, "m1"), want(jobB, "ev1/task1/2/e1", 10_000, "m2")}
	if diff := cmp.Diff(wantJobs, jobs); diff != "" {
		t.Errorf("jobs (-want +got):\n%s", diff)
	}
	// jobA's events: sample_init, sandbox, 6 model and 3 tool events, then the two bad ones.
	l0, l2 := itoa(sampleLine(t, path, 0)), itoa(sampleLine(t, path, 2))
	checkSkipped(t, skipped, []string{
		"log.json:" + l0 + ": samples[0].events[11]: model event: the call failed",
		"log.json:" + l0 + ": samples[0].events[12]: model event: no output.usage",
		"log.json:" + l2 + ": samples[2]: sample C epoch 1: no usable model call",
	})
	// Retries and tools are counted: jobA's 6 calls each record a retry,
	// its first tool failed; jobB's 3 calls too (2 tools, none failed).
	col, err := Collect(Inspect, []string{path})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{
		path + ":" + l0 + ": samples[0]: ev1/task1/A/e1: 6 calls were retried (their interval includes the retries)",
		path + ":" + itoa(sampleLine(t, path, 1)) + ": samples[1]: ev1/task1/2/e1: 3 calls were retried (their interval includes the retries)",
	}, col.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if got, want := col.Summarise(), (Summary{Jobs: 2, Turns: 6, Calls: 9, Tools: 4, FailedTools: 1}); got != want {
		t.Errorf("summary %+v, want %+v", got, want)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestTruncated: a log cut short keeps what came before the break and
// reports the break.
func TestTruncated(t *testing.T) {
	dir := t.TempDir()
	log := inspectHeaderJSON("task1", "ev1", "anthropic/claude-x")
	log["samples"] = []any{inspectSampleJSON(jobA, "A", inspectStyle{}, inspectExtra{}), inspectSampleJSON(jobB, "B", inspectStyle{old: true}, inspectExtra{})}
	b, _ := json.Marshal(log)
	cut := strings.Index(string(b), `"id":"B"`)
	inspect := filepath.Join(dir, "cut.json")
	os.WriteFile(inspect, b[:cut], 0o644)
	jobs, skipped := importAll(t, Inspect, abMap, inspect)
	if len(jobs) != 1 || jobs[0].ID != "ev1/task1/A/e1" {
		t.Errorf("jobs %v, want A alone", jobs)
	}
	checkSkipped(t, skipped, []string{"cut.json:1: invalid JSON, the rest of the file not read"})

	sb, _ := json.Marshal(otlpRequest(otlpSpans(jobA, 1, otlpStyle{group: "agent"})))
	otlp := filepath.Join(t.TempDir(), "cut.jsonl")
	sb2, _ := json.Marshal(otlpRequest(otlpSpans(jobB, 2, otlpStyle{group: "conv"})))
	cut2 := strings.Index(string(sb2), `"spans":[`) + 20 // inside B's first span
	writeLines(t, otlp, []string{string(sb), string(sb2[:cut2])})
	jobs, skipped = importAll(t, OTLP, abMap, otlp)
	if len(jobs) != 1 || jobs[0].ID != "A" {
		t.Errorf("jobs %v, want A alone", jobs)
	}
	checkSkipped(t, skipped, []string{"cut.jsonl:2: invalid JSON, the rest of the file not read"})
}

// spanLine is the line of the opening brace of the span whose spanId line
// contains id (json.MarshalIndent puts the id after the attributes, the
// end time and the name: keys sorted; the brace is found by walking back).
func spanLine(t *testing.T, path, id string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for k, l := range lines {
		if strings.Contains(l, `"spanId": `) && strings.Contains(l, id) {
			indent := len(l) - len(strings.TrimLeft(l, " ")) - 1
			for j := k; j >= 0; j-- {
				if lines[j] == strings.Repeat(" ", indent)+"{" {
					return j + 1
				}
			}
		}
	}
	t.Fatalf("no span %s in %s", id, path)
	return 0
}

func TestInspectEvalZip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.eval")
	writeInspectEval(t, path, inspectHeaderJSON("task1", "ev2", ""), map[string]map[string]any{
		"samples/A_epoch_1.json": inspectSampleJSON(jobA, "A", inspectStyle{}, inspectExtra{}),
		"samples/B_epoch_1.json": inspectSampleJSON(jobB, "B", inspectStyle{old: true}, inspectExtra{}),
	}, map[string]string{
		"samples/bad_epoch_1.json":   `{"id": "bad", "events": [`,
		"samples/wrong_epoch_1.json": `{"id": "w", "events": "none"}`,
		"_journal/start.json":        `not read`,
	})
	// A directory of logs is searched for .eval and .json files.
	jobs, skipped := importAll(t, Inspect, abMap, dir)
	wantJobs := []got{want(jobA, "ev2/task1/A/e1", 0, "m1"), want(jobB, "ev2/task1/B/e1", 10_000, "m2")}
	if diff := cmp.Diff(wantJobs, jobs); diff != "" {
		t.Errorf("jobs (-want +got):\n%s", diff)
	}
	checkSkipped(t, skipped, []string{
		"run.eval:samples/bad_epoch_1.json: invalid JSON",
		"run.eval:samples/wrong_epoch_1.json: invalid JSON: events: want an array, got a JSON string",
	})
}

func TestOTLP(t *testing.T) {
	// jobE: neither an agent span nor a conversation id: grouped by trace.
	jobE := specJob{id: "E", model: "anthropic/claude-x", start: 20_000, turns: []specTurn{
		{calls: []specCall{{dur: 100, in: 10, out: 5}, {at: 50, dur: 100, in: 10, out: 6}}, gap: 400},
		{calls: []specCall{{dur: 100, in: 30, out: 5}}},
	}}
	traceE := make([]byte, 16)
	traceE[0], traceE[15] = 3, 0xab
	spansA := otlpSpans(jobA, 1, otlpStyle{group: "agent"})
	spansB := otlpSpans(jobB, 2, otlpStyle{group: "conv", old: true, base64: true})
	spansE := otlpSpans(jobE, 3, otlpStyle{group: "trace"})
	// Bad spans in A's trace, under its agent.
	agentParent := spansA[1]["spanId"]
	traceA := spansA[0]["traceId"]
	bad := []map[string]any{
		{"traceId": traceA, "spanId": "0101000000000099", "parentSpanId": agentParent, "name": "chat x", "startTimeUnixNano": nano(ms(600)), "endTimeUnixNano": nano(ms(700)),
			"attributes": []any{kvS("gen_ai.operation.name", "chat"), kvS("gen_ai.request.model", "anthropic/claude-x"), kvI("gen_ai.usage.input_tokens", 5), kvI("gen_ai.usage.output_tokens", 5)},
			"status":     map[string]any{"code": "STATUS_CODE_ERROR", "message": "overloaded"}},
		{"traceId": traceA, "spanId": "0101000000000098", "parentSpanId": agentParent, "name": "chat x", "startTimeUnixNano": nano(ms(600)), "endTimeUnixNano": nano(ms(700)),
			"attributes": []any{kvS("gen_ai.operation.name", "chat"), kvS("gen_ai.request.model", "anthropic/claude-x")}},
		{"traceId": traceA, "spanId": "xyz", "name": "chat x", "startTimeUnixNano": "1", "endTimeUnixNano": "2"},
		{"traceId": traceA, "spanId": "0101000000000097", "name": "chat x", "startTimeUnixNano": "soon", "endTimeUnixNano": "2"},
	}
	wantJobs := []got{
		want(jobA, "A", 0, "m1"),
		want(jobB, "B", 10_250, "m2"), // from its first call: no agent span
		want(jobE, hex.EncodeToString(traceE), 20_000, "m1"),
	}
	t.Run("json", func(t *testing.T) {
		path := tempPath(t, "spans.json")
		writeJSON(t, path, otlpRequest(slices.Concat(spansA, bad, spansB, spansE)))
		jobs, skipped := importAll(t, OTLP, abMap, path)
		if diff := cmp.Diff(wantJobs, jobs); diff != "" {
			t.Errorf("jobs (-want +got):\n%s", diff)
		}
		// Projects: the agent's name, else the resource's service.name;
		// an unmapped model is refused with its provider.
		col, err := Collect(OTLP, []string{path})
		if err != nil {
			t.Fatal(err)
		}
		projects := map[string]string{}
		for _, s := range col.Sessions {
			projects[s.ID] = s.Project
		}
		if diff := cmp.Diff(map[string]string{"A": "coder", "B": "agent", hex.EncodeToString(traceE): "agent"}, projects); diff != "" {
			t.Errorf("projects (-want +got):\n%s", diff)
		}
		if _, err := col.Jobs(testCatalogue, map[string]string{"openai/gpt-y": "m2"}); err == nil || !strings.Contains(err.Error(), "anthropic/claude-x (") || !strings.Contains(err.Error(), "calls, provider anthropic)") {
			t.Errorf("unmapped model: %v", err)
		}
		checkSkipped(t, skipped, []string{
			"spans.json:" + itoa(spanLine(t, path, "0101000000000099")) + ": status: the call failed (overloaded)",
			"spans.json:" + itoa(spanLine(t, path, "0101000000000098")) + ": attributes: no gen_ai.usage.input_tokens",
			"spans.json:" + itoa(spanLine(t, path, `"xyz"`)) + ": spanId: want 16 hex digits",
			"spans.json:" + itoa(spanLine(t, path, "0101000000000097")) + ": startTimeUnixNano: want a string of Unix nanoseconds",
		})
	})
	t.Run("jsonl-reversed", func(t *testing.T) {
		// One request a line, as the OTLP file exporter writes; spans in
		// reverse order, children before their parents.
		path := tempPath(t, "spans.jsonl")
		var lines []string
		for _, sp := range [][]map[string]any{spansE, spansB, spansA} {
			r := slices.Clone(sp)
			slices.Reverse(r)
			b, _ := json.Marshal(otlpRequest(r))
			lines = append(lines, string(b))
		}
		writeLines(t, path, lines)
		jobs, skipped := importAll(t, OTLP, abMap, path)
		if diff := cmp.Diff(wantJobs, jobs); diff != "" {
			t.Errorf("jobs (-want +got):\n%s", diff)
		}
		checkSkipped(t, skipped, nil)
		// The same, gzipped, in a directory of logs.
		dir := t.TempDir()
		var zb bytes.Buffer
		zw := gzip.NewWriter(&zb)
		zw.Write([]byte(strings.Join(lines, "\n") + "\n"))
		zw.Close()
		os.WriteFile(filepath.Join(dir, "spans.jsonl.gz"), zb.Bytes(), 0o644)
		os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a log"), 0o644)
		jobs, _ = importAll(t, OTLP, abMap, dir)
		if diff := cmp.Diff(wantJobs, jobs); diff != "" {
			t.Errorf("gzipped, in a directory: jobs (-want +got):\n%s", diff)
		}
	})
}

func TestTraceLab(t *testing.T) {
	path := tempPath(t, "round_trace.jsonl")
	c, d := traceLabLines(jobC, false), traceLabLines(jobD, true)
	lines := []string{c[0], d[0], `{"session_id": "x", "round_index": `, c[1], `{"round_index": 3, "model": "m"}`, d[1], c[2], c[1]}
	writeLines(t, path, lines)
	jobs, skipped := importAll(t, TraceLab, map[string]string{"claude-opus": "m1", "gpt-5.4": "m2"}, path)
	wantJobs := []got{want(jobD, "codex:s2", 0, "m2"), want(jobC, "claude:s1", 500, "m1")}
	if diff := cmp.Diff(wantJobs, jobs); diff != "" {
		t.Errorf("jobs (-want +got):\n%s", diff)
	}
	checkSkipped(t, skipped, []string{
		"round_trace.jsonl:3: record: ",
		"round_trace.jsonl:5: session_id: missing",
		"round_trace.jsonl:8: round_index: round 1 of session claude:s1 repeated (first at ",
	})
}

func TestModelRefusal(t *testing.T) {
	path := tempPath(t, "round_trace.jsonl")
	writeLines(t, path, slices.Concat(traceLabLines(jobC, false), traceLabLines(jobD, true)))
	col, err := Collect(TraceLab, []string{path})
	if err != nil {
		t.Fatal(err)
	}
	_, err = col.Jobs(testCatalogue, map[string]string{"gpt-5.4": "m2"})
	var um *UnknownModelsError
	if !errors.As(err, &um) || !slices.Equal(um.Names, []string{"claude-opus"}) || um.Calls["claude-opus"] != 3 {
		t.Errorf("got %v, want claude-opus (3 calls) refused", err)
	}
	if _, err = col.Jobs(testCatalogue, map[string]string{"claude-opus": "m9"}); err == nil || !strings.Contains(err.Error(), `"m9" is not a model of the scenario`) {
		t.Errorf("mapping to an unknown model: got %v", err)
	}
	// A file of no round at all is refused at reading (TestTraceLabNotRounds);
	// one whose only round is unusable has no job.
	empty := tempPath(t, "empty.jsonl")
	writeLines(t, empty, []string{strings.TrimSuffix(round("s1", 0, func(r map[string]any) { r["input_tokens_total"] = -1 }), "\n")})
	col, err = Collect(TraceLab, []string{empty})
	if err != nil {
		t.Fatal(err)
	}
	var nj *NoJobsError
	if _, err = col.Jobs(testCatalogue, nil); !errors.As(err, &nj) || nj.Skipped != 1 {
		t.Errorf("no usable record: got %v", err)
	}
}

// TestDeterministic: the same logs give byte-identical traces.
func TestDeterministic(t *testing.T) {
	path := tempPath(t, "spans.json")
	writeJSON(t, path, otlpRequest(slices.Concat(otlpSpans(jobA, 1, otlpStyle{group: "agent"}), otlpSpans(jobB, 2, otlpStyle{group: "conv"}))))
	var outs []string
	for range 3 {
		col, err := Collect(OTLP, []string{path})
		if err != nil {
			t.Fatal(err)
		}
		jobs, err := col.Jobs(testCatalogue, abMap)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := WriteJobs(&b, jobs); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b.String())
	}
	if outs[0] != outs[1] || outs[1] != outs[2] {
		t.Error("three imports of one file differ")
	}
}
