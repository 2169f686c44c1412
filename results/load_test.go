package results_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/sim/simtest"
	"github.com/google/go-cmp/cmp"
)

func TestLoadOutputs(t *testing.T) {
	dir, _ := simtest.Outputs(t)
	o, err := results.LoadOutputs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Summary.Runs) != 2 || len(o.Summary.Comparison) == 0 {
		t.Fatalf("summary: %d runs, %d comparison rows", len(o.Summary.Runs), len(o.Summary.Comparison))
	}
	for _, f := range []struct {
		file string
		n    int
	}{{"series.csv", len(o.Series)}, {"batches.csv", len(o.Batches)}} {
		data, err := os.ReadFile(filepath.Join(dir, f.file))
		if err != nil {
			t.Fatal(err)
		}
		if lines := bytes.Count(data, []byte("\n")) - 1; lines != f.n {
			t.Errorf("%s: %d rows read, %d in the file", f.file, f.n, lines)
		}
	}
	if len(o.Series) == 0 {
		t.Fatal("no series row")
	}
	r := o.Series[0]
	if r.Policy != "fixed-lane" || r.Model == "" || r.T <= 0 {
		t.Errorf("first series row %+v", r)
	}
	if _, err := results.LoadOutputs(t.TempDir()); err == nil {
		t.Error("an empty directory loaded")
	}
}

func TestLoadOutputsExtraColumnsAndErrors(t *testing.T) {
	dir := t.TempDir()
	simtest.WriteSummary(t, dir, results.Summary{Schema: "evalsched-summary", SchemaVersion: results.SchemaVersion, Runs: []results.Run{{Policy: "p", Window: [2]float64{0, 600}}}})
	simtest.WriteFile(t, dir, "series.csv", "t_s,policy,model,running,limit,gateway_depth,provider_inflight,waiting,rejected_429,cache_miss_tool,cache_miss_gateway,cache_read_share\n10,p,m,1,2,3,4,5,6,7,8,0.25\n")
	simtest.Seal(t, dir)
	o, err := results.LoadOutputs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.SeriesExtra) != 1 || o.SeriesExtra[0] != "rejected_429" || len(o.Series) != 1 || o.Series[0].Extra[0] != 6 ||
		o.Series[0].T != 10 || o.Series[0].Waiting != 5 || o.Series[0].CacheMissTool != 7 || o.Series[0].CacheMissGateway != 8 || o.Series[0].CacheReadShare != 0.25 {
		t.Errorf("extra columns: %+v %+v", o.SeriesExtra, o.Series)
	}
	simtest.WriteFile(t, dir, "series.csv", results.SeriesCSVHeader+","+results.SeriesCSVCacheColumns+"\np,10,m,x,2,3,4,5,0,0,0\n")
	simtest.Seal(t, dir)
	if _, err := results.LoadOutputs(dir); err == nil || !strings.Contains(err.Error(), "series.csv:2") {
		t.Errorf("bad number: %v", err)
	}
	simtest.WriteFile(t, dir, "series.csv", "policy,t_s\np,10\n")
	simtest.Seal(t, dir)
	if _, err := results.LoadOutputs(dir); err == nil || !strings.Contains(err.Error(), "no column") {
		t.Errorf("missing column: %v", err)
	}
}

// TestLoadOutputsNamesOtherDirectories: given the directory of a sweep, a
// tune or a gate, the error says what it holds instead of a missing
// summary.json.
func TestLoadOutputsNamesOtherDirectories(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"sweep.json", "holds a sweep's outputs (sweep.json), not a run's"},
		{"tune.csv", "holds a tune's outputs (tune.csv), not a run's"},
		{"verdict.json", "holds a gate's outputs (verdict.json), not a run's"},
		{"", "summary.json: no such file or directory"},
	} {
		dir := t.TempDir()
		if tc.file != "" {
			if err := os.WriteFile(filepath.Join(dir, tc.file), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := results.LoadOutputs(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.file, err, tc.want)
		}
	}
}

// TestLoadOutputsRefuses: a folder that is not whole is refused with the
// file, line and field at fault (a *field.Error), not read. The cases with
// after change a file once summary.json recorded it (as sim would have):
// only its rows and digest tell.
func TestLoadOutputsRefuses(t *testing.T) {
	run := results.Run{Policy: "p", Window: [2]float64{60, 600}, JobsArrived: 3, JobsCompleted: 2}
	v := results.SchemaVersion
	good := results.Summary{Schema: "evalsched-summary", SchemaVersion: v, Runs: []results.Run{run}}
	head := results.SeriesCSVHeader + "," + results.SeriesCSVCacheColumns
	series := head + "\np,10,m,1,2,3,4,5,0.5,0,0\np,10,n,0,2,0,0,0,0,0,0\np,20,m,1,2,3,4,5,0,1,2\n"
	batches := results.BatchesCSVHeader + "\np,10,b,m,large,5,1,0\n"
	lines := strings.SplitAfter(series, "\n") // header, three rows, ""
	const changed = "the file was changed after sim wrote it"
	for _, tc := range []struct {
		name            string
		summary         *results.Summary
		raw             string // summary.json's text instead
		files           func([]results.RowFile) []results.RowFile
		series, batches string
		after           func(series string) string // series.csv once recorded
		want            field.Error                // File relative to the folder
		wantPrefix      string                     // Msg's start, for a message naming a digest
	}{
		{name: "empty summary", raw: "{}", want: field.Error{File: "summary.json", Path: "schema", Msg: `"": not a summary.json of sim run or compare (want schema "evalsched-summary")`}},
		{name: "cut summary", raw: `{"schema": "evalsched-summary", "runs": [`, want: field.Error{File: "summary.json", Line: 1, Msg: "cut short (the JSON ends before its value does): not a complete file"}},
		{name: "newer version", summary: &results.Summary{Schema: "evalsched-summary", SchemaVersion: v + 1, Runs: []results.Run{run}}, want: field.Error{File: "summary.json", Path: "schema_version", Msg: fmt.Sprintf("%d: this tool reads version %d", v+1, v)}},
		{name: "version 1", summary: &results.Summary{Schema: "evalsched-summary", SchemaVersion: 1, Runs: []results.Run{run}}, want: field.Error{File: "summary.json", Path: "schema_version", Msg: fmt.Sprintf("1: written by an earlier sim, before summary.json recorded its row files' rows and digests; this tool reads version %d: rerun the command that wrote the folder", v)}},
		{name: "a run twice", summary: &results.Summary{Schema: "evalsched-summary", SchemaVersion: v, Runs: []results.Run{run, run}}, want: field.Error{File: "summary.json", Path: "runs[1].policy", Msg: `"p" given twice`}},
		{name: "no files", files: func([]results.RowFile) []results.RowFile { return nil }, want: field.Error{File: "summary.json", Path: "files", Msg: "no record of series.csv: sim records every row file it writes"}},
		{name: "a file unrecorded", files: func(f []results.RowFile) []results.RowFile { return f[:1] }, want: field.Error{File: "summary.json", Path: "files", Msg: "no record of batches.csv: sim records every row file it writes"}},
		{name: "a file twice", files: func(f []results.RowFile) []results.RowFile { return []results.RowFile{f[0], f[1], f[0]} }, want: field.Error{File: "summary.json", Path: "files[2].name", Msg: `"series.csv" given twice`}},
		{name: "a file not sim's", files: func(f []results.RowFile) []results.RowFile { f[1].Name = "notes.csv"; return f }, want: field.Error{File: "summary.json", Path: "files[1].name", Msg: `"notes.csv" is not a row file sim writes (series.csv, batches.csv)`}},
		{name: "rows negative", files: func(f []results.RowFile) []results.RowFile { f[0].Rows = -3; return f }, want: field.Error{File: "summary.json", Path: "files[0].rows", Msg: "-3: a count is >= 0"}},
		{name: "digest not sha256", files: func(f []results.RowFile) []results.RowFile { f[0].SHA256 = f[0].SHA256[:40]; return f }, want: field.Error{File: "summary.json", Path: "files[0].sha256", Msg: "\"" + sha(series)[:40] + "\" is not a sha256 (64 hex digits)"}},
		{name: "time NaN", series: head + "\np,NaN,m,1,2,3,4,5,0,0,0\n", want: field.Error{File: "series.csv", Line: 2, Path: "t_s", Msg: "NaN is not a time within the run (0 to 600 s)"}},
		{name: "time past the run", series: head + "\np,1e308,m,1,2,3,4,5,0,0,0\n", want: field.Error{File: "series.csv", Line: 2, Path: "t_s", Msg: "1e+308 is not a time within the run (0 to 600 s)"}},
		{name: "another run's rows", series: head + "\nq,10,m,1,2,3,4,5,0,0,0\n", want: field.Error{File: "series.csv", Line: 2, Path: "policy", Msg: `"q" is not a run of summary.json (have p): rows of another run`}},
		{name: "rows back in time", series: series + "p,10,m,1,2,3,4,5,0,0,0\n", want: field.Error{File: "series.csv", Line: 5, Path: "t_s", Msg: "10 after 20: the run's rows are in time order (rows of another run?)"}},
		{name: "cut series", series: series[:len(series)-4], want: field.Error{File: "series.csv", Line: 4, Msg: "cut short: its last line has no end (a file sim wrote ends every line)"}},
		{name: "negative count", series: head + "\np,10,m,-1,2,3,4,5,0,0,0\n", want: field.Error{File: "series.csv", Line: 2, Path: "running", Msg: "-1: a count is >= 0"}},
		{name: "no cache columns", series: results.SeriesCSVHeader + "\np,10,m,1,2,3,4,5\n", want: field.Error{File: "series.csv", Line: 2, Msg: `no column "cache_read_share"`}},
		{name: "share above one", series: head + "\np,10,m,1,2,3,4,5,1.5,0,0\n", want: field.Error{File: "series.csv", Line: 2, Path: "cache_read_share", Msg: "1.5: a share is in [0, 1]"}},
		{name: "negative misses", series: head + "\np,10,m,1,2,3,4,5,0,0,-1\n", want: field.Error{File: "series.csv", Line: 2, Path: "cache_miss_tool", Msg: "-1: a count is >= 0"}},
		{name: "done past started", batches: results.BatchesCSVHeader + "\np,10,b,m,large,5,1,3\n", want: field.Error{File: "batches.csv", Line: 2, Path: "jobs", Msg: "jobs 5, started 1, done 3: want 0 <= done <= started <= jobs"}},
		{name: "unknown batch class", batches: results.BatchesCSVHeader + "\np,10,b,m,huge,5,1,1\n", want: field.Error{File: "batches.csv", Line: 2, Path: "class", Msg: `unknown "huge" (want large or small_behind_large)`}},
		{name: "empty batches", batches: "", want: field.Error{File: "batches.csv", Msg: "empty: sim writes a header line (cut short?)"}},
		{name: "series cut at a line boundary", after: func(s string) string { return strings.Join(lines[:3], "") },
			want: field.Error{File: "series.csv", Msg: "rows: want 3 (as summary.json records), have 2: the file was cut, or rows were added, after sim wrote it"}},
		{name: "series cut to its header", after: func(s string) string { return lines[0] },
			want: field.Error{File: "series.csv", Msg: "rows: want 3 (as summary.json records), have 0: the file was cut, or rows were added, after sim wrote it"}},
		{name: "a row added in time order", after: func(s string) string { return strings.Join(lines[:3], "") + "p,15,m,0,2,0,0,0,0,0,0\n" + lines[3] },
			want: field.Error{File: "series.csv", Msg: "rows: want 3 (as summary.json records), have 4: the file was cut, or rows were added, after sim wrote it"}},
		{name: "rows of one time reordered", after: func(s string) string { return lines[0] + lines[2] + lines[1] + lines[3] },
			wantPrefix: "digest mismatch: sha256 " + sha(lines[0]+lines[2]+lines[1]+lines[3]) + ", summary.json records " + sha(series) + ": " + changed,
			want:       field.Error{File: "series.csv"}},
		{name: "a value changed", after: func(s string) string { return strings.Replace(s, "p,20,m,1,", "p,20,m,2,", 1) },
			wantPrefix: "digest mismatch: sha256 " + sha(strings.Replace(series, "p,20,m,1,", "p,20,m,2,", 1)), want: field.Error{File: "series.csv"}},
		{name: "series missing", after: func(string) string { return "\x00remove" }, want: field.Error{File: "series.csv", Msg: "missing: summary.json records it (3 rows)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := good
			if tc.summary != nil {
				s = *tc.summary
			}
			se, ba := series, batches
			if tc.series != "" {
				se = tc.series
			}
			if tc.batches != "" || tc.name == "empty batches" {
				ba = tc.batches
			}
			simtest.WriteSummary(t, dir, s)
			simtest.WriteFile(t, dir, "series.csv", se)
			simtest.WriteFile(t, dir, "batches.csv", ba)
			simtest.Seal(t, dir)
			if tc.files != nil {
				var sealed results.Summary
				if err := results.ReadJSONFile(filepath.Join(dir, "summary.json"), &sealed); err != nil {
					t.Fatal(err)
				}
				sealed.Files = tc.files(sealed.Files)
				simtest.WriteSummary(t, dir, sealed)
			}
			if tc.raw != "" {
				simtest.WriteFile(t, dir, "summary.json", tc.raw)
			}
			if tc.after != nil {
				if edited := tc.after(se); edited == "\x00remove" {
					os.Remove(filepath.Join(dir, "series.csv"))
				} else {
					simtest.WriteFile(t, dir, "series.csv", edited)
				}
			}
			_, err := results.LoadOutputs(dir)
			var fe *field.Error
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a *field.Error", err)
			}
			want, got := tc.want, *fe
			want.File = filepath.Join(dir, want.File)
			if tc.wantPrefix != "" {
				if !strings.HasPrefix(got.Msg, tc.wantPrefix) || !strings.HasSuffix(got.Msg, changed) {
					t.Errorf("message %q, want it to start %q and end %q", got.Msg, tc.wantPrefix, changed)
				}
				got.Msg = ""
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// sha is the sha256 of s in hex, as summary.json records a file's.
func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
