package gatewaylog

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	catalogue = []string{"hot-a", "hot-b", "judge"}
	mapping   = map[string]string{"gpt-4o-2024-08-06": "hot-a", "claude-sonnet-4-5": "hot-b", "gpt-4o-mini": "hot-b"}
)

const (
	keyA = "5b2f0c3e9d4a7f18e6c1b0a9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9"
	keyB = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
	keyC = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"
)

// importFiles runs Import into memory; written reports whether write was
// called at all.
func importFiles(t *testing.T, opt Options, paths ...string) (out string, st Stats, written bool, err error) {
	t.Helper()
	var buf bytes.Buffer
	st, err = Import(paths, opt, func(w func(io.Writer) error) error {
		written = true
		return w(&buf)
	})
	return buf.String(), st, written, err
}

// TestImportSample: both forms of the sample (the API's JSON array,
// newest first; a Postgres CSV export, oldest first) give the trace worked
// out by hand from PROVENANCE.md's rows: the cache hit (r03's, at 4 s) and
// the failure (r05, at 5.25 s) left out, times in ms since r01's start,
// latency end − start, models mapped, team absent for the master key's
// call.
func TestImportSample(t *testing.T) {
	want := strings.Join([]string{
		`{"timestamp":0,"input_length":1200,"output_length":300,"model":"hot-a","team":"team-search","key":"` + keyA + `","latency_ms":1250}`,
		`{"timestamp":500,"input_length":3400,"output_length":512,"model":"hot-b","team":"team-support","key":"` + keyB + `","latency_ms":1500}`,
		`{"timestamp":3000,"input_length":900,"output_length":150,"model":"hot-a","team":"team-search","key":"` + keyA + `","latency_ms":900}`,
		`{"timestamp":7000,"input_length":5100,"output_length":800,"model":"hot-b","team":"team-support","key":"` + keyB + `","latency_ms":2500}`,
		`{"timestamp":10000,"input_length":400,"output_length":80,"model":"hot-b","key":"litellm_proxy_master_key","latency_ms":700}`,
		`{"timestamp":12125,"input_length":2000,"output_length":410,"model":"hot-a","team":"team-search","key":"` + keyC + `","latency_ms":875}`,
		`{"timestamp":60000,"input_length":2500,"output_length":600,"model":"hot-b","team":"team-search","key":"` + keyA + `","latency_ms":2000}`,
		`{"timestamp":150000,"input_length":1500,"output_length":200,"model":"hot-a","team":"team-support","key":"` + keyB + `","latency_ms":1000}`,
	}, "\n") + "\n"
	wantStats := Stats{Rows: 10, Calls: 8, CacheHits: 1, Failures: 1, Models: 2, Teams: 2, Keys: 4, Span: 150e9}
	for _, name := range []string{"spendlogs.json", "spendlogs.csv"} {
		t.Run(name, func(t *testing.T) {
			var skipped []string
			got, st, _, err := importFiles(t, Options{Catalogue: catalogue, Mapping: mapping, Skip: func(s string) { skipped = append(skipped, s) }},
				filepath.Join("testdata", "litellm", name))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("trace (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantStats, st); diff != "" {
				t.Errorf("stats (-want +got):\n%s", diff)
			}
			if len(skipped) != 2 {
				t.Errorf("skipped lines: %q, want the cache hit and the failure", skipped)
			}
		})
	}
}

// TestImportJSONLines: the same rows one a line read as the array does,
// and a row's line is its own.
func TestImportJSONLines(t *testing.T) {
	dir := t.TempDir()
	rows := `{"request_id":"a","startTime":"2026-11-30T14:00:00Z","endTime":"2026-11-30T14:00:01Z","model":"hot-a","prompt_tokens":10,"completion_tokens":2,"team_id":"t1"}
{"request_id":"b","startTime":1796047200.5,"endTime":1796047201,"model":"hot-b","prompt_tokens":20,"completion_tokens":3,"status":null,"cache_hit":false}
`
	p := filepath.Join(dir, "rows.jsonl")
	os.WriteFile(p, []byte(rows), 0o644)
	got, _, _, err := importFiles(t, Options{Catalogue: catalogue}, p)
	if err != nil {
		t.Fatal(err)
	}
	// 2026-11-30T14:00:00Z is Unix 1796047200.
	want := `{"timestamp":0,"input_length":10,"output_length":2,"model":"hot-a","team":"t1","latency_ms":1000}
{"timestamp":500,"input_length":20,"output_length":3,"model":"hot-b","latency_ms":500}
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestImportRefusals: each malformed field refuses the import with its
// file, line and field, and nothing is written.
func TestImportRefusals(t *testing.T) {
	const good = `"request_id":"x","startTime":"2026-11-30T14:00:00Z","endTime":"2026-11-30T14:00:01Z","model":"hot-a","prompt_tokens":10,"completion_tokens":2`
	ok := `{"request_id":"ok","startTime":"2026-11-30T14:00:00Z","endTime":"2026-11-30T14:00:01Z","model":"hot-a","prompt_tokens":1,"completion_tokens":1}`
	with := func(field, value string) string { // the good row with field replaced
		parts := strings.Split(good, ",")
		for i, p := range parts {
			if strings.HasPrefix(p, `"`+field+`":`) {
				parts[i] = `"` + field + `":` + value
				return "{" + strings.Join(parts, ",") + "}"
			}
		}
		return "{" + good + `,"` + field + `":` + value + "}"
	}
	without := func(field string) string {
		var keep []string
		for _, p := range strings.Split(good, ",") {
			if !strings.HasPrefix(p, `"`+field+`":`) {
				keep = append(keep, p)
			}
		}
		return "{" + strings.Join(keep, ",") + "}"
	}
	for _, tc := range []struct {
		name, file, text, want string
	}{
		{"invalid JSON", "a.jsonl", ok + "\n{\"request_id\":\n", "a.jsonl:2: record: "},
		{"not an object", "a.jsonl", ok + "\n[1,2]\n", "a.jsonl:2: record: want a JSON object"},
		{"trailing garbage", "a.jsonl", ok + "\n" + with("model", `"hot-a"`) + " xyz\n", "a.jsonl:2: record: trailing data"},
		{"binary", "a.json", "\x00\x01\x02garbage", "a.json:1: record: want a JSON array"},
		{"UTF-16", "a.json", "\xff\xfe[\x00", "a.json:1: record: UTF-16"},
		{"repeated field", "a.jsonl", `{"model":"hot-a",` + good + "}\n", "a.jsonl:1: model: repeated"},
		{"request_id missing", "a.jsonl", without("request_id") + "\n", "a.jsonl:1: request_id: missing"},
		{"request_id repeated", "a.jsonl", with("model", `"hot-a"`) + "\n" + ok + "\n" + with("model", `"hot-b"`) + "\n", "a.jsonl:3: request_id: repeated (first at "},
		{"startTime missing", "a.jsonl", without("startTime") + "\n", "a.jsonl:1: startTime: missing"},
		{"startTime bad", "a.jsonl", with("startTime", `"yesterday"`) + "\n", "a.jsonl:1: startTime: want a time"},
		{"startTime out of range", "a.jsonl", with("startTime", `1e300`) + "\n", "a.jsonl:1: startTime: want Unix seconds"},
		{"endTime before start", "a.jsonl", with("endTime", `"2026-11-30T13:59:59Z"`) + "\n", "a.jsonl:1: endTime: before startTime"},
		{"model missing", "a.jsonl", without("model") + "\n", "a.jsonl:1: model: missing"},
		{"model not a string", "a.jsonl", with("model", `7`) + "\n", "a.jsonl:1: model: want a string"},
		{"prompt_tokens negative", "a.jsonl", with("prompt_tokens", `-5`) + "\n", "a.jsonl:1: prompt_tokens: want a token count"},
		{"prompt_tokens fraction", "a.jsonl", with("prompt_tokens", `1.5`) + "\n", "a.jsonl:1: prompt_tokens: want a token count"},
		{"completion_tokens missing", "a.jsonl", without("completion_tokens") + "\n", "a.jsonl:1: completion_tokens: missing"},
		{"completion_tokens too big", "a.jsonl", with("completion_tokens", `4294967296`) + "\n", "a.jsonl:1: completion_tokens: want a token count"},
		{"cache_hit bad", "a.jsonl", with("cache_hit", `"maybe"`) + "\n", "a.jsonl:1: cache_hit: want True or False"},
		{"status bad", "a.jsonl", with("status", `"pending"`) + "\n", "a.jsonl:1: status: want success or failure"},
		{"team_id too long", "a.jsonl", with("team_id", `"`+strings.Repeat("t", 300)+`"`) + "\n", "a.jsonl:1: team_id: longer than 256 bytes"},
		{"api_key not a string", "a.jsonl", with("api_key", `{}`) + "\n", "a.jsonl:1: api_key: want a string"},
		{"line too long", "a.jsonl", ok + "\n" + `{"request_id":"` + strings.Repeat("x", MaxRowBytes) + "\"}\n", "a.jsonl:2: record: longer than"},
		{"array element", "a.json", "[\n  " + ok + ",\n  " + with("status", `"pending"`) + "\n]\n", "a.json:3: status: want success or failure"},
		{"array cut", "a.json", "[\n  " + ok + ",\n  {\"request_id\": \"y\",\n", "a.json:"},
		{"array trailing", "a.json", "[" + ok + "] []", "a.json:1: record: trailing data after the array"},
		{"array of endless space", "a.json", "[" + ok + "," + strings.Repeat(" ", MaxRowBytes+2<<20), "a.json:1: record: longer than"},
		{"endless leading space", "a.json", strings.Repeat(" ", MaxRowBytes+2), "a.json:1: record: longer than"},
		{"csv missing column", "a.csv", "request_id,startTime,endTime,model,prompt_tokens\nx,2026-11-30 14:00:00,2026-11-30 14:00:01,hot-a,1\n", "a.csv:1: completion_tokens: missing column"},
		{"csv repeated column", "a.csv", "request_id,startTime,endTime,model,model,prompt_tokens,completion_tokens\n", "a.csv:1: model: repeated column"},
		{"csv bad cell", "a.csv", "request_id,startTime,endTime,model,prompt_tokens,completion_tokens\nx,2026-11-30 14:00:00,2026-11-30 14:00:01,hot-a,1,1\ny,2026-11-30 14:00:02,2026-11-30 14:00:03,hot-a,ten,1\n", "a.csv:3: prompt_tokens: want a token count"},
		{"csv short row", "a.csv", "request_id,startTime,endTime,model,prompt_tokens,completion_tokens\nx,2026-11-30 14:00:00\n", "a.csv:2: record: wrong number of fields"},
		{"unknown model", "a.jsonl", with("model", `"gpt-9"`) + "\n", `"gpt-9": 1 rows (first at `},
		{"only cache hits", "a.jsonl", with("cache_hit", `"True"`) + "\n", "no call to replay"},
		{"empty", "a.json", "", "no call to replay"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), tc.file)
			if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, written, err := importFiles(t, Options{Catalogue: catalogue}, p)
			if err == nil {
				t.Fatalf("imported; want an error containing %q", tc.want)
			}
			msg := strings.TrimPrefix(err.Error(), filepath.Dir(p)+string(filepath.Separator))
			if !strings.Contains(msg, tc.want) {
				t.Errorf("error %q, want it to contain %q", msg, tc.want)
			}
			if written {
				t.Error("the trace was written")
			}
		})
	}
}

// TestImportRowBound: rows are bounded (they are held to be sorted), and
// the row past the bound is named.
func TestImportRowBound(t *testing.T) {
	imp := &importer{names: map[string]int32{}, rows: make([]row, MaxRows)}
	fr := &fileReader{imp: imp, path: "big.jsonl"}
	var cells [nFields]cell
	err := imp.add(cells, fr, MaxRows+1)
	want := "big.jsonl:2000001: record: more than 2000000 rows"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}
