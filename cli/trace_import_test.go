package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sampleLogs are the shipped copies of ../shared/agent-logs (provenance in
// their README).
const sampleLogs = "../workloads/agentlog/testdata"

// TestTraceImportSharedSamples imports each sample log, with a --map for
// its models, and runs sim compare --trace on the result.
func TestTraceImportSharedSamples(t *testing.T) {
	dir := t.TempDir()
	mapFile := filepath.Join(dir, "models.yaml")
	if err := os.WriteFile(mapFile, []byte("# recorded: scenario model\nanthropic/claude-opus-4-1-20250805: hot-a\nclaude-opus-4-8: hot-a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		from, file string
		maps       []string
		jobs       int
	}{
		{"inspect", "metr-oxdna-small.eval", []string{mapFile}, 6},
		{"inspect", "inspect-browser.json.gz", []string{"openai/gpt-4o-mini=hot-b"}, 1},
		{"inspect", "inspect-security-guide.json", []string{"openai/gpt-4o-mini=hot-b"}, 3},
		{"tracelab", "tracelab-round-trace.jsonl", []string{mapFile, "gpt-5.4=hot-b"}, 2},
	} {
		t.Run(tc.file, func(t *testing.T) {
			trace := filepath.Join(dir, tc.file+".jobs.jsonl")
			args := []string{"trace", "import", "--from", tc.from, "--scenario", traceScenario, "--out", trace}
			for _, m := range tc.maps {
				args = append(args, "--map", m)
			}
			out, stderr, code := runSim(t, append(args, filepath.Join(sampleLogs, tc.file))...)
			if code != 0 {
				t.Fatalf("import: exit %d: %s%s", code, out, stderr)
			}
			if want := "imported " + strconv.Itoa(tc.jobs) + " jobs"; !strings.Contains(out, want) {
				t.Errorf("import said %q, want %q", out, want)
			}
			res := filepath.Join(dir, tc.file+".out")
			if out, stderr, code := runSim(t, "compare", "--scenario", traceScenario, "--trace", trace, "--out", res); code != 0 {
				t.Fatalf("compare --trace: exit %d: %s%s", code, out, stderr)
			}
			if _, err := os.Stat(filepath.Join(res, "summary.json")); err != nil {
				t.Errorf("compare wrote no summary: %v", err)
			}
		})
	}
}

// TestTraceImportRefusals: an unknown model is refused with its name and
// nothing is written; so is a log with nothing usable; a bad --from is a
// usage error.
func TestTraceImportRefusals(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "round_trace.jsonl")
	if err := os.WriteFile(log, []byte(`{"session_id":"s","round_index":0,"model":"mystery-1","input_tokens_total":10,"output_tokens":2,"timing_events":[{"event_type":"user_message","timestamp":"2026-01-01T00:00:00Z"},{"event_type":"text","timestamp":"2026-01-01T00:00:01Z"}]}`+"\n"+`{"oops"`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "jobs.jsonl")
	stdout, stderr, code := runSim(t, "trace", "import", "--from", "tracelab", "--scenario", traceScenario, "--out", out, log)
	if code != exitError || !strings.Contains(stderr, "mystery-1 (1 calls)") || !strings.Contains(stdout, "round_trace.jsonl:2: record:") {
		t.Errorf("unknown model: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused import wrote %s", out)
	}
	stdout, stderr, code = runSim(t, "trace", "import", "--from", "tracelab", "--scenario", traceScenario, "--map", "mystery-1=hot-a", "--out", out, log)
	if code != 0 || !strings.Contains(stdout, "imported 1 jobs") || !strings.Contains(stdout, "1 records could not be used") {
		t.Errorf("mapped: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"session_id":"s","round_index":0,"model":"mystery-1","input_tokens_total":10,"output_tokens":2,"timing_events":[]}`+"\n"), 0o644)
	if _, stderr, code := runSim(t, "trace", "import", "--from", "tracelab", "--scenario", traceScenario, "--out", filepath.Join(dir, "none.jsonl"), bad); code != exitError || !strings.Contains(stderr, "no usable job") {
		t.Errorf("nothing usable: exit %d, stderr %q", code, stderr)
	}
	// Not a round trace at all: refused once, not a skipped line a record.
	os.WriteFile(bad, []byte("{\"oops\"\n"), 0o644)
	if stdout, stderr, code := runSim(t, "trace", "import", "--from", "tracelab", "--scenario", traceScenario, "--out", filepath.Join(dir, "none.jsonl"), bad); code != exitError || !strings.Contains(stderr, "bad.jsonl: not a TraceLab round trace") || stdout != "" {
		t.Errorf("not a round trace: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, stderr, code := runSim(t, "trace", "import", "--from", "langfuse", "--out", out, log); code != exitUsage || !strings.Contains(stderr, "unknown log format") {
		t.Errorf("bad --from: exit %d, stderr %q", code, stderr)
	}
}

func TestReadModelMap(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	yml := write("m.yaml", "# recorded: model\nopenai/gpt-4o-mini: hot-a\nanthropic/x: hot-b\n")
	js := write("m.json", `{"anthropic/x": "tail-1", "y": "hot-b"}`)
	got, err := readModelMap([]string{yml, js, "z=hot-a", "y=tail-2"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"openai/gpt-4o-mini": "hot-a", "anthropic/x": "tail-1", "y": "tail-2", "z": "hot-a"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, tc := range []struct{ arg, want string }{
		{write("bad.yaml", "a: hot-a\nb: [x]\n"), "bad.yaml:2: b: want a scenario model name"},
		{write("list.yaml", "- a\n"), "list.yaml:1: want a mapping"},
		{"=hot-a", "want RECORDED=MODEL"},
		{filepath.Join(dir, "missing.yaml"), "want a file, or RECORDED=MODEL"},
	} {
		if _, err := readModelMap([]string{tc.arg}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.arg, err, tc.want)
		}
	}
}

// TestModelMapFileErrors: a broken --map file is refused at its file and
// line: a syntax error at the line at fault (the YAML parser counts some
// lines from 0), a second document where it starts; an empty one maps
// nothing.
func TestModelMapFileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, text, want string }{
		{"unclosed list", "a: hot-a\nb: [hot-b\nc: hot-a\n", ":2: did not find expected ',' or ']'"},
		{"second document", "a: hot-a\n---\nb: hot-b\n", ":2: a second YAML document (---): a --map file is one document"},
		{"empty", "# nothing\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".yaml")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := readModelMap([]string{path})
			got := ""
			if err != nil {
				got = err.Error()
				if !strings.HasPrefix(got, path) {
					t.Fatalf("error %q does not name the file", got)
				}
			}
			if diff := cmp.Diff(tc.want, strings.TrimPrefix(got, path)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}
