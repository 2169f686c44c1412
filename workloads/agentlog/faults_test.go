package agentlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// round is one TraceLab round line; edit changes its fields.
func round(session string, index int, edit func(map[string]any)) string {
	r := map[string]any{"provider": "claude", "project": "p", "session_id": session, "round_index": index, "model": "claude-opus",
		"input_tokens_total": 100, "output_tokens": 10,
		"timing_events": []any{
			map[string]any{"event_type": "user_message", "timestamp": "2026-06-01T05:40:20.000Z"},
			map[string]any{"event_type": "text", "timestamp": "2026-06-01T05:40:21.000Z"},
		}}
	if edit != nil {
		edit(r)
	}
	b, _ := json.Marshal(r)
	return string(b) + "\n"
}

// readAll reads files of a format, within a time bound: the sessions'
// ids, the problems and the error.
func readAll(t *testing.T, format Format, files ...string) (ids []string, skipped []string, err error) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		err = ReadFiles(format, files, Sink{
			Session: func(s *Session) { ids = append(ids, s.ID) },
			Skip: func(p *Problem) {
				if len(skipped) < 100 {
					skipped = append(skipped, p.Error())
				} else if len(skipped) == 100 {
					skipped = append(skipped, "…")
				}
			},
		})
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%v: still reading after 20s", files)
	}
	return ids, skipped, err
}

// TestBrokenLogs: inputs that are not what the importer reads are refused
// once, with the file and what they are, within bounded time and memory;
// records whose values cannot be right are skipped naming the field.
func TestBrokenLogs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	utf16 := func(s string) string {
		b := []byte{0xff, 0xfe}
		for _, c := range []byte(s) {
			b = append(b, c, 0)
		}
		return string(b)
	}
	good := round("s1", 0, nil)
	otlpCall := func(trace, id, parent, kind string, attrs ...any) map[string]any {
		sp := map[string]any{"traceId": trace, "spanId": id, "name": kind + " x", "startTimeUnixNano": "1780000000000000000", "endTimeUnixNano": "1780000001000000000",
			"attributes": append([]any{map[string]any{"key": "gen_ai.operation.name", "value": map[string]any{"stringValue": kind}}}, attrs...)}
		if parent != "" {
			sp["parentSpanId"] = parent
		}
		return sp
	}
	kv := func(k string, v map[string]any) any { return map[string]any{"key": k, "value": v} }
	model := kv("gen_ai.request.model", map[string]any{"stringValue": "m"})
	tokens := []any{model, kv("gen_ai.usage.input_tokens", map[string]any{"intValue": "10"}), kv("gen_ai.usage.output_tokens", map[string]any{"intValue": "5"})}
	otlpFile := func(name string, spans ...any) string {
		b, _ := json.Marshal(map[string]any{"resourceSpans": []any{map[string]any{"scopeSpans": []any{map[string]any{"spans": spans}}}}})
		return write(name, string(b))
	}
	const trace = "0102030405060708090a0b0c0d0e0f10"
	for _, tc := range []struct {
		name    string
		format  Format
		file    func() string
		ids     []string
		skipped []string
		err     string
	}{
		{name: "/dev/zero as a round trace", format: TraceLab, file: func() string { return "/dev/zero" },
			err: "/dev/zero:1: binary data (a NUL byte at offset 0): not a text file"},
		{name: "binary", format: TraceLab, file: func() string { return write("bin.jsonl", good+"\x00\x01\x02\xff"+strings.Repeat("\x00x\n", 1000)) },
			err: "bin.jsonl:1: binary data (a NUL byte at offset"},
		{name: "an endless line", format: TraceLab, file: func() string {
			return write("long.jsonl", good+strings.Repeat("x", maxLogLine+10))
		}, err: "long.jsonl:2: a line longer than 16777216 bytes"},
		{name: "UTF-16", format: TraceLab, file: func() string { return write("u16.jsonl", utf16(good)) },
			err: "u16.jsonl:1: UTF-16: convert to UTF-8"},
		{name: "UTF-8 with a BOM is read", format: TraceLab, file: func() string { return write("bom.jsonl", "\ufeff"+good) },
			ids: []string{"s1"}},
		{name: "a time past Go's range", format: TraceLab, file: func() string {
			return write("far.jsonl", good+round("s2", 0, func(r map[string]any) {
				r["timing_events"].([]any)[1].(map[string]any)["timestamp"] = "9999-06-01T05:40:21.000Z"
			}))
		}, ids: []string{"s1"}, skipped: []string{"far.jsonl:2: timing_events[1].timestamp: 9999-06-01T05:40:21.000Z is outside the years 1678 to 2261"}},
		{name: "a tool ending before it starts", format: TraceLab, file: func() string {
			return write("tool.jsonl", good+round("s2", 0, func(r map[string]any) {
				r["tools"] = []any{map[string]any{"tool_name": "t", "emitted_at": "2026-06-01T05:40:21.000Z", "result_at": "2026-06-01T05:40:20.000Z"}}
			}))
		}, ids: []string{"s1"}, skipped: []string{"tool.jsonl:2: tools[0].result_at: before emitted_at (a negative duration)"}},
		{name: "OTLP in UTF-16", format: OTLP, file: func() string { return write("u16.json", utf16(`{"resourceSpans": []}`)) },
			err: "u16.json:1: UTF-16: convert to UTF-8"},
		{name: "OTLP negative tokens as a double", format: OTLP, file: func() string {
			return otlpFile("neg.json", otlpCall(trace, "0000000000000001", "", "chat", model,
				kv("gen_ai.usage.input_tokens", map[string]any{"doubleValue": -5}), kv("gen_ai.usage.output_tokens", map[string]any{"intValue": "5"})))
		}, skipped: []string{`neg.json:1: attributes: gen_ai.usage.input_tokens: want a non-negative integer, got -5`}},
		{name: "OTLP negative start", format: OTLP, file: func() string {
			sp := otlpCall(trace, "0000000000000001", "", "chat", tokens...)
			sp["startTimeUnixNano"] = "-5"
			return otlpFile("negt.json", sp)
		}, skipped: []string{`negt.json:1: startTimeUnixNano: -5 is before 1970`}},
		{name: "OTLP parent cycle keeps two agents apart", format: OTLP, file: func() string {
			return otlpFile("cycle.json",
				otlpCall(trace, "00000000000000a1", "00000000000000a2", "invoke_agent"),
				otlpCall(trace, "00000000000000a2", "00000000000000a1", "invoke_agent"),
				otlpCall(trace, "00000000000000c1", "00000000000000a1", "chat", tokens...),
				otlpCall(trace, "00000000000000c2", "00000000000000a2", "chat", tokens...))
		}, ids: []string{trace + "/00000000000000a1", trace + "/00000000000000a2"},
			skipped: []string{"cycle.json:1: parentSpanId: span 00000000000000a1's parents form a cycle (00000000000000a1 → 00000000000000a2 → 00000000000000a1): read without a parent",
				"cycle.json:1: parentSpanId: span 00000000000000a2's parents form a cycle (00000000000000a2 → 00000000000000a1 → 00000000000000a2): read without a parent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids, skipped, err := readAll(t, tc.format, tc.file())
			if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
			if tc.err != "" {
				if len(skipped) > 0 {
					t.Errorf("refused, and %d skipped besides: %q", len(skipped), skipped[0])
				}
				return
			}
			if fmt.Sprint(ids) != fmt.Sprint(tc.ids) {
				t.Errorf("sessions %q, want %q", ids, tc.ids)
			}
			for i := range skipped {
				skipped[i] = strings.TrimPrefix(skipped[i], dir+"/")
			}
			if fmt.Sprint(skipped) != fmt.Sprint(tc.skipped) {
				t.Errorf("skipped\n%q, want\n%q", skipped, tc.skipped)
			}
		})
	}
}

// TestEndlessFIFO: a named pipe that never ends (an endless stream of
// rounds, of OTLP requests) is read up to the record limit, then refused.
func TestEndlessFIFO(t *testing.T) {
	defer func(n int) { maxLogRecords = n }(maxLogRecords)
	maxLogRecords = 1000
	for _, tc := range []struct {
		format Format
		line   func(i int) string
		want   string
	}{
		{TraceLab, func(i int) string { return round(fmt.Sprint("s", i), 0, nil) }, "fifo:1001: more than 1000 records"},
		{OTLP, func(i int) string {
			return fmt.Sprintf(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"%032x","spanId":"0000000000000001","name":"chat m","startTimeUnixNano":"1","endTimeUnixNano":"2"}]}]}]}`+"\n", i+1)
		}, "fifo:1001: more than 1000 records"},
	} {
		t.Run(tc.format.String(), func(t *testing.T) { endless(t, tc.format, tc.line, tc.want) })
	}
}

func endless(t *testing.T, format Format, line func(int) string, want string) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := f.WriteString(line(i)); err != nil {
				return
			}
		}
	}()
	_, _, err := readAll(t, format, p)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
}

// TestLongIDRefusedAtImport: a job whose trace line the trace's readers
// would refuse (an OTLP conversation id of 17 MB) fails the import, and
// nothing is written.
func TestLongIDRefusedAtImport(t *testing.T) {
	kv := func(k string, v map[string]any) any { return map[string]any{"key": k, "value": v} }
	sp := map[string]any{"traceId": "0102030405060708090a0b0c0d0e0f10", "spanId": "0000000000000001", "name": "chat m",
		"startTimeUnixNano": "1780000000000000000", "endTimeUnixNano": "1780000001000000000",
		"attributes": []any{kv("gen_ai.operation.name", map[string]any{"stringValue": "chat"}), kv("gen_ai.request.model", map[string]any{"stringValue": "m"}),
			kv("gen_ai.conversation.id", map[string]any{"stringValue": strings.Repeat("c", 17<<20)}),
			kv("gen_ai.usage.input_tokens", map[string]any{"intValue": "10"}), kv("gen_ai.usage.output_tokens", map[string]any{"intValue": "5"})}}
	b, _ := json.Marshal(map[string]any{"resourceSpans": []any{map[string]any{"scopeSpans": []any{map[string]any{"spans": []any{sp}}}}}})
	p := filepath.Join(t.TempDir(), "long.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	wrote := false
	_, _, err := Import(OTLP, []string{p}, ImportOptions{Catalogue: []string{"m"}}, func(write func(io.Writer) error) error {
		var out bytes.Buffer
		if err := write(&out); err != nil {
			return err
		}
		wrote = true
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "its trace line would be") || wrote {
		t.Fatalf("error %v, wrote %v", err, wrote)
	}
}

// TestRemoveTemporary: the sort runs an import has on disk are removed by
// RemoveTemporary (what sim does on SIGINT or SIGTERM), and no later run
// is made.
func TestRemoveTemporary(t *testing.T) {
	dir := t.TempDir()
	s := newSorter(dir, 64)
	defer func() {
		runFiles.Lock()
		runFiles.stopped = false
		runFiles.Unlock()
	}()
	for i := range 100 {
		if err := s.add([]byte(fmt.Sprint("k", i)), []byte("value")); err != nil {
			t.Fatal(err)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) == 0 {
		t.Fatal("no run written: the test needs a smaller budget")
	}
	RemoveTemporary()
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%d files left: %v", len(left), left[0].Name())
	}
	for i := range 100 {
		if err := s.add([]byte(fmt.Sprint("k", i)), []byte("value")); err != nil {
			return
		}
	}
	t.Errorf("the sort went on after RemoveTemporary")
}
