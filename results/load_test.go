package results_test

import (
	"bytes"
	"errors"
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
	simtest.WriteSummary(t, dir, results.Summary{Schema: "evalsched-summary", SchemaVersion: 1, Runs: []results.Run{{Policy: "p", Window: [2]float64{0, 600}}}})
	simtest.WriteFile(t, dir, "series.csv", "t_s,policy,model,running,limit,gateway_depth,provider_inflight,waiting,rejected_429,cache_miss_tool,cache_miss_gateway,cache_read_share\n10,p,m,1,2,3,4,5,6,7,8,0.25\n")
	o, err := results.LoadOutputs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.SeriesExtra) != 1 || o.SeriesExtra[0] != "rejected_429" || len(o.Series) != 1 || o.Series[0].Extra[0] != 6 ||
		o.Series[0].T != 10 || o.Series[0].Waiting != 5 || o.Series[0].CacheMissTool != 7 || o.Series[0].CacheMissGateway != 8 || o.Series[0].CacheReadShare != 0.25 {
		t.Errorf("extra columns: %+v %+v", o.SeriesExtra, o.Series)
	}
	simtest.WriteFile(t, dir, "series.csv", results.SeriesCSVHeader+","+results.SeriesCSVCacheColumns+"\np,10,m,x,2,3,4,5,0,0,0\n")
	if _, err := results.LoadOutputs(dir); err == nil || !strings.Contains(err.Error(), "series.csv:2") {
		t.Errorf("bad number: %v", err)
	}
	simtest.WriteFile(t, dir, "series.csv", "policy,t_s\np,10\n")
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
// file, line and field at fault (a *field.Error), not read.
func TestLoadOutputsRefuses(t *testing.T) {
	run := results.Run{Policy: "p", Window: [2]float64{60, 600}, JobsArrived: 3, JobsCompleted: 2}
	good := results.Summary{Schema: "evalsched-summary", SchemaVersion: 1, Runs: []results.Run{run}}
	head := results.SeriesCSVHeader + "," + results.SeriesCSVCacheColumns
	series := head + "\np,10,m,1,2,3,4,5,0.5,0,0\np,20,m,1,2,3,4,5,0,1,2\n"
	batches := results.BatchesCSVHeader + "\np,10,b,m,large,5,1,0\n"
	for _, tc := range []struct {
		name            string
		summary         *results.Summary
		raw             string // summary.json's text instead
		series, batches string
		want            field.Error // File relative to the folder
	}{
		{name: "empty summary", raw: "{}", want: field.Error{File: "summary.json", Path: "schema", Msg: `"": not a summary.json of sim run or compare (want schema "evalsched-summary")`}},
		{name: "cut summary", raw: `{"schema": "evalsched-summary", "runs": [`, want: field.Error{File: "summary.json", Line: 1, Msg: "cut short (the JSON ends before its value does): not a complete file"}},
		{name: "newer version", summary: &results.Summary{Schema: "evalsched-summary", SchemaVersion: 2, Runs: []results.Run{run}}, want: field.Error{File: "summary.json", Path: "schema_version", Msg: "2: this tool reads versions 1 to 1"}},
		{name: "a run twice", summary: &results.Summary{Schema: "evalsched-summary", SchemaVersion: 1, Runs: []results.Run{run, run}}, want: field.Error{File: "summary.json", Path: "runs[1].policy", Msg: `"p" given twice`}},
		{name: "time NaN", series: head + "\np,NaN,m,1,2,3,4,5,0,0,0\n", want: field.Error{File: "series.csv", Line: 2, Path: "t_s", Msg: "NaN is not a time within the run (0 to 600 s)"}},
		{name: "time past the run", series: head + "\np,1e308,m,1,2,3,4,5,0,0,0\n", want: field.Error{File: "series.csv", Line: 2, Path: "t_s", Msg: "1e+308 is not a time within the run (0 to 600 s)"}},
		{name: "another run's rows", series: head + "\nq,10,m,1,2,3,4,5,0,0,0\n", want: field.Error{File: "series.csv", Line: 2, Path: "policy", Msg: `"q" is not a run of summary.json (have p): rows of another run`}},
		{name: "rows back in time", series: series + "p,10,m,1,2,3,4,5,0,0,0\n", want: field.Error{File: "series.csv", Line: 4, Path: "t_s", Msg: "10 after 20: the run's rows are in time order (rows of another run?)"}},
		{name: "cut series", series: series[:len(series)-4], want: field.Error{File: "series.csv", Line: 3, Msg: "cut short: its last line has no end (a file sim wrote ends every line)"}},
		{name: "no cache columns", series: results.SeriesCSVHeader + "\np,10,m,1,2,3,4,5\n", want: field.Error{File: "series.csv", Line: 2, Msg: `no column "cache_read_share"`}},
		{name: "share above one", series: head + "\np,10,m,1,2,3,4,5,1.5,0,0\n", want: field.Error{File: "series.csv", Line: 2, Path: "cache_read_share", Msg: "1.5: a share is in [0, 1]"}},
		{name: "negative misses", series: head + "\np,10,m,1,2,3,4,5,0,0,-1\n", want: field.Error{File: "series.csv", Line: 2, Path: "cache_miss_tool", Msg: "-1: a count is >= 0"}},
		{name: "negative count", series: head + "\np,10,m,-1,2,3,4,5,0,0,0\n", want: field.Error{File: "series.csv", Line: 2, Path: "running", Msg: "-1: a count is >= 0"}},
		{name: "done past started", batches: results.BatchesCSVHeader + "\np,10,b,m,large,5,1,3\n", want: field.Error{File: "batches.csv", Line: 2, Path: "jobs", Msg: "jobs 5, started 1, done 3: want 0 <= done <= started <= jobs"}},
		{name: "unknown batch class", batches: results.BatchesCSVHeader + "\np,10,b,m,huge,5,1,1\n", want: field.Error{File: "batches.csv", Line: 2, Path: "class", Msg: `unknown "huge" (want large or small_behind_large)`}},
		{name: "empty batches", batches: "", want: field.Error{File: "batches.csv", Msg: "empty: sim writes a header line (cut short?)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := good
			if tc.summary != nil {
				s = *tc.summary
			}
			simtest.WriteSummary(t, dir, s)
			if tc.raw != "" {
				simtest.WriteFile(t, dir, "summary.json", tc.raw)
			}
			se, ba := series, batches
			if tc.series != "" {
				se = tc.series
			}
			if tc.batches != "" || tc.name == "empty batches" {
				ba = tc.batches
			}
			simtest.WriteFile(t, dir, "series.csv", se)
			simtest.WriteFile(t, dir, "batches.csv", ba)
			_, err := results.LoadOutputs(dir)
			var fe *field.Error
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a *field.Error", err)
			}
			want := tc.want
			want.File = filepath.Join(dir, want.File)
			if diff := cmp.Diff(want, *fe); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}
