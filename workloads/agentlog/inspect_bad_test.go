package agentlog

import (
	"archive/zip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// badHeader is a minimal EvalLog header; edit changes it.
func badHeader(edit func(h map[string]any)) map[string]any {
	h := map[string]any{"status": "success",
		"eval": map[string]any{"eval_id": "ev", "task": "t", "model": "m", "config": map[string]any{}},
		"plan": map[string]any{"config": map[string]any{}}}
	if edit != nil {
		edit(h)
	}
	return h
}

// badSample is a sample with one model call (events[1]) and one tool
// (events[2]); edit changes it.
func badSample(id int, edit func(s map[string]any)) map[string]any {
	s := map[string]any{"id": id, "epoch": 1, "started_at": "2025-09-15T19:07:21Z", "total_time": 3.0,
		"events": []any{
			map[string]any{"event": "sample_init", "timestamp": "2025-09-15T19:07:21Z"},
			map[string]any{"event": "model", "timestamp": "2025-09-15T19:07:22Z", "completed": "2025-09-15T19:07:24Z", "working_time": 2.0, "model": "m",
				"output": map[string]any{"time": 2.0, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}},
			map[string]any{"event": "tool", "timestamp": "2025-09-15T19:07:24Z", "working_time": 0.5, "function": "f"},
		}}
	if edit != nil {
		edit(s)
	}
	return s
}

func event(s map[string]any, i int) map[string]any { return s["events"].([]any)[i].(map[string]any) }

// writeEval writes a .eval zip of a header (nil: none) and samples.
func writeEval(t *testing.T, path string, header map[string]any, samples ...map[string]any) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	put := func(name string, v any) {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.NewEncoder(w).Encode(v); err != nil {
			t.Fatal(err)
		}
	}
	if header != nil {
		put("header.json", header)
	}
	for _, s := range samples {
		put("samples/"+itoa(s["id"].(int))+"_epoch_1.json", s)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeEvalJSON writes a .json EvalLog of a header and samples.
func writeEvalJSON(t *testing.T, path string, header map[string]any, samples ...map[string]any) string {
	t.Helper()
	h := map[string]any{}
	for k, v := range header {
		h[k] = v
	}
	h["samples"] = samples
	b, err := json.MarshalIndent(h, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type inspectRead struct {
	IDs      []string
	Settings []Settings
	Calls    []int
	Skipped  []string
	Err      string
}

func readInspectFile(t *testing.T, dir, path string) inspectRead {
	t.Helper()
	var r inspectRead
	err := ReadFiles(Inspect, []string{path}, Sink{
		Session: func(s *Session) {
			r.IDs = append(r.IDs, s.ID)
			r.Settings = append(r.Settings, *s.Settings)
			r.Calls = append(r.Calls, len(s.Calls))
		},
		Skip: func(p *Problem) { r.Skipped = append(r.Skipped, strings.TrimPrefix(p.Error(), dir+"/")) },
	})
	if err != nil {
		r.Err = strings.TrimPrefix(err.Error(), dir+"/")
	}
	return r
}

// TestInspectBadSettings: a header setting of the wrong type or below 1
// refuses the log, naming file, member (or line) and field; it never
// becomes the default as if unset. Unset (absent, null) and set ones are
// read.
func TestInspectBadSettings(t *testing.T) {
	dir := t.TempDir()
	set := func(part, key string, v any) func(map[string]any) {
		return func(h map[string]any) {
			if part == "model_generate_config" {
				h["eval"].(map[string]any)[part] = map[string]any{key: v}
				return
			}
			if part == "plan" {
				h["plan"].(map[string]any)["config"].(map[string]any)[key] = v
				return
			}
			h["eval"].(map[string]any)["config"].(map[string]any)[key] = v
		}
	}
	one := []string{"ev/t/1/e1"}
	for _, tc := range []struct {
		name       string
		edit       func(map[string]any)
		zip, jsonl inspectRead // jsonl: the same header in a .json EvalLog
	}{
		{name: "unset", edit: nil,
			zip:   inspectRead{IDs: one, Settings: []Settings{{}}, Calls: []int{1}},
			jsonl: inspectRead{IDs: one, Settings: []Settings{{}}, Calls: []int{1}}},
		{name: "null is unset", edit: set("eval", "max_samples", nil),
			zip:   inspectRead{IDs: one, Settings: []Settings{{}}, Calls: []int{1}},
			jsonl: inspectRead{IDs: one, Settings: []Settings{{}}, Calls: []int{1}}},
		{name: "set", edit: func(h map[string]any) { set("eval", "max_samples", 7)(h); set("plan", "max_connections", 32)(h) },
			zip:   inspectRead{IDs: one, Settings: []Settings{{MaxSamples: 7, MaxConnections: 32}}, Calls: []int{1}},
			jsonl: inspectRead{IDs: one, Settings: []Settings{{MaxSamples: 7, MaxConnections: 32}}, Calls: []int{1}}},
		{name: "max_connections a string", edit: set("plan", "max_connections", "32"),
			zip:   inspectRead{Err: "b.eval:header.json: invalid JSON: plan.config.max_connections: want a whole number, got a JSON string (the log's header is unreadable: the log is refused)"},
			jsonl: inspectRead{Err: "b.json:8: plan.config.max_connections: want a whole number, got a JSON string (the log's header is unreadable: the log is refused)"}},
		{name: "max_connections negative", edit: set("plan", "max_connections", -4),
			zip:   inspectRead{Err: "b.eval:header.json: plan.config.max_connections: must be at least 1 when set (null or absent when unset), got -4: the log is refused"},
			jsonl: inspectRead{Err: "b.json:8: plan.config.max_connections: must be at least 1 when set (null or absent when unset), got -4: the log is refused"}},
		{name: "max_samples negative", edit: set("eval", "max_samples", -3),
			zip:   inspectRead{Err: "b.eval:header.json: eval.config.max_samples: must be at least 1 when set (null or absent when unset), got -3: the log is refused"},
			jsonl: inspectRead{Err: "b.json:2: eval.config.max_samples: must be at least 1 when set (null or absent when unset), got -3: the log is refused"}},
		{name: "max_tasks zero", edit: set("eval", "max_tasks", 0),
			zip:   inspectRead{Err: "b.eval:header.json: eval.config.max_tasks: must be at least 1 when set (null or absent when unset), got 0: the log is refused"},
			jsonl: inspectRead{Err: "b.json:2: eval.config.max_tasks: must be at least 1 when set (null or absent when unset), got 0: the log is refused"}},
		{name: "max_samples fractional", edit: set("eval", "max_samples", 2.5),
			zip:   inspectRead{Err: "b.eval:header.json: invalid JSON: eval.config.max_samples: want a whole number, got a JSON number 2.5 (the log's header is unreadable: the log is refused)"},
			jsonl: inspectRead{Err: "b.json:2: eval.config.max_samples: want a whole number, got a JSON number 2.5 (the log's header is unreadable: the log is refused)"}},
		{name: "generate config max_connections negative", edit: set("model_generate_config", "max_connections", -1),
			zip:   inspectRead{Err: "b.eval:header.json: eval.model_generate_config.max_connections: must be at least 1 when set (null or absent when unset), got -1: the log is refused"},
			jsonl: inspectRead{Err: "b.json:2: eval.model_generate_config.max_connections: must be at least 1 when set (null or absent when unset), got -1: the log is refused"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := badHeader(tc.edit)
			got := readInspectFile(t, dir, writeEval(t, filepath.Join(dir, "b.eval"), h, badSample(1, nil)))
			if diff := cmp.Diff(tc.zip, got); diff != "" {
				t.Errorf(".eval (-want +got):\n%s", diff)
			}
			got = readInspectFile(t, dir, writeEvalJSON(t, filepath.Join(dir, "b.json"), h, badSample(1, nil)))
			if diff := cmp.Diff(tc.jsonl, got); diff != "" {
				t.Errorf(".json (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInspectBadTimes: a negative, or absurdly long, working_time,
// output.time or total_time skips its call (tool, sample) with the field
// named; it is not read as a duration (1e300 s would overflow one).
func TestInspectBadTimes(t *testing.T) {
	dir := t.TempDir()
	const where = "b.eval:samples/2_epoch_1.json: "
	for _, tc := range []struct {
		name string
		edit func(map[string]any)
		want inspectRead
	}{
		{name: "good", want: inspectRead{IDs: []string{"ev/t/1/e1", "ev/t/2/e1"}, Calls: []int{1, 1}}},
		{name: "working_time negative", edit: func(s map[string]any) { event(s, 1)["working_time"] = -3.0 },
			want: inspectRead{IDs: []string{"ev/t/1/e1"}, Calls: []int{1}, Skipped: []string{
				where + "events[1]: model event: working_time: -3 s is negative",
				where + "sample 2 epoch 1: no usable model call"}}},
		{name: "output.time negative, no completed", edit: func(s map[string]any) {
			delete(event(s, 1), "completed")
			delete(event(s, 1), "working_time")
			event(s, 1)["output"].(map[string]any)["time"] = -3.0
		}, want: inspectRead{IDs: []string{"ev/t/1/e1"}, Calls: []int{1}, Skipped: []string{
			where + "events[1]: model event: output.time: -3 s is negative",
			where + "sample 2 epoch 1: no usable model call"}}},
		{name: "output.time 1e300", edit: func(s map[string]any) { event(s, 1)["output"].(map[string]any)["time"] = 1e300 },
			want: inspectRead{IDs: []string{"ev/t/1/e1"}, Calls: []int{1}, Skipped: []string{
				where + "events[1]: model event: output.time: 1e+300 s is longer than 3.1536e+07 s (a year, the longest span a trace holds)",
				where + "sample 2 epoch 1: no usable model call"}}},
		{name: "working_time 1e300", edit: func(s map[string]any) { event(s, 1)["working_time"] = 1e300 },
			want: inspectRead{IDs: []string{"ev/t/1/e1"}, Calls: []int{1}, Skipped: []string{
				where + "events[1]: model event: working_time: 1e+300 s is longer than 3.1536e+07 s (a year, the longest span a trace holds)",
				where + "sample 2 epoch 1: no usable model call"}}},
		{name: "completed years after", edit: func(s map[string]any) { event(s, 1)["completed"] = "2250-01-01T00:00:00Z" },
			want: inspectRead{IDs: []string{"ev/t/1/e1"}, Calls: []int{1}, Skipped: []string{
				where + "events[1]: model event: completed 1966108h52m38s after its timestamp, longer than a year (the longest span a trace holds)",
				where + "sample 2 epoch 1: no usable model call"}}},
		{name: "tool working_time negative", edit: func(s map[string]any) { event(s, 2)["working_time"] = -1.0 },
			want: inspectRead{IDs: []string{"ev/t/1/e1", "ev/t/2/e1"}, Calls: []int{1, 1}, Skipped: []string{
				where + "events[2]: tool event: working_time: -1 s is negative"}}},
		{name: "total_time negative", edit: func(s map[string]any) { s["total_time"] = -5.0 },
			want: inspectRead{IDs: []string{"ev/t/1/e1"}, Calls: []int{1}, Skipped: []string{
				where + "total_time: sample 2 epoch 1: -5 s is negative"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := readInspectFile(t, dir, writeEval(t, filepath.Join(dir, "b.eval"), badHeader(nil), badSample(1, nil), badSample(2, tc.edit)))
			got.Settings = nil
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestInspectDirOtherJSON: a .json in a log directory that is not an
// EvalLog (no eval or samples member) is said (a skipped file naming its
// keys), not silently read as a log of nothing; an EvalLog beside it is
// read as before.
func TestInspectDirOtherJSON(t *testing.T) {
	dir := t.TempDir()
	writeEval(t, filepath.Join(dir, "a.eval"), badHeader(nil), badSample(1, nil))
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"name": "config", "x": [1, 2]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	writeEvalJSON(t, filepath.Join(dir, "b.json"), badHeader(func(h map[string]any) { h["eval"].(map[string]any)["eval_id"] = "ev2" }), badSample(1, nil))
	col, err := Collect(Inspect, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range col.Sessions {
		ids = append(ids, s.ID)
	}
	if diff := cmp.Diff([]string{"ev/t/1/e1", "ev2/t/1/e1"}, ids); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
	var skipped []string
	for _, p := range col.Skipped {
		skipped = append(skipped, p.Error())
	}
	if diff := cmp.Diff([]string{dir + "/config.json:1: not an Inspect log: its JSON object has neither eval nor samples (its keys: name, x)"}, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

// TestArrivalOverflow: logs whose jobs start more than 292 years apart
// (1700 and 2250, both times parseTime reads) are refused, by Import and
// by Jobs, not written with an arrival that overflowed (it was
// "arrival_s":-1090452826.-357414616); a year apart is read.
func TestArrivalOverflow(t *testing.T) {
	dir := t.TempDir()
	in := func(year string) func(map[string]any) {
		re := func(m map[string]any, k string) {
			if v, ok := m[k].(string); ok {
				m[k] = strings.Replace(v, "2025-", year+"-", 1)
			}
		}
		return func(s map[string]any) {
			re(s, "started_at")
			for _, e := range s["events"].([]any) {
				re(e.(map[string]any), "timestamp")
				re(e.(map[string]any), "completed")
			}
		}
	}
	const refused = "job ev/t/2/e1 starts at 2250-09-15T19:07:21Z, more than 292 years after the logs' first job (1700-09-15T19:07:21Z): its arrival cannot be represented; import the logs apart"
	for _, tc := range []struct {
		name, year string
		want       string
	}{
		{"centuries apart", "2250", refused},
		{"a year apart", "2026", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeEval(t, filepath.Join(dir, tc.year+".eval"), badHeader(nil), badSample(1, in("1700")), badSample(2, in(tc.year)))
			if tc.year == "2026" {
				p = writeEval(t, filepath.Join(dir, tc.year+".eval"), badHeader(nil), badSample(1, in("2025")), badSample(2, in(tc.year)))
			}
			wrote := false
			_, _, err := Import(Inspect, []string{p}, ImportOptions{Catalogue: []string{"m"}}, func(write func(io.Writer) error) error {
				wrote = true
				return write(io.Discard)
			})
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Import (-want +got):\n%s", diff)
			}
			if wrote != (tc.want == "") {
				t.Errorf("wrote %v", wrote)
			}
			col, err := Collect(Inspect, []string{p})
			if err != nil {
				t.Fatal(err)
			}
			_, err = col.Jobs([]string{"m"}, nil)
			got = ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Jobs (-want +got):\n%s", diff)
			}
		})
	}
}
