package results_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/sim/simtest"
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
	simtest.WriteSummary(t, dir, results.Summary{Schema: "evalsched-summary", SchemaVersion: 1})
	simtest.WriteFile(t, dir, "series.csv", "t_s,policy,model,running,limit,gateway_depth,provider_inflight,waiting,rejected_429\n10,p,m,1,2,3,4,5,6\n")
	o, err := results.LoadOutputs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.SeriesExtra) != 1 || o.SeriesExtra[0] != "rejected_429" || len(o.Series) != 1 || o.Series[0].Extra[0] != 6 ||
		o.Series[0].T != 10 || o.Series[0].Waiting != 5 {
		t.Errorf("extra columns: %+v %+v", o.SeriesExtra, o.Series)
	}
	simtest.WriteFile(t, dir, "series.csv", results.SeriesCSVHeader+"\np,10,m,x,2,3,4,5\n")
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
