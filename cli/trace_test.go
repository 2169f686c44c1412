package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/workloads"
	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"
)

// runTrace runs `sim trace ARGS` through the command's own flag parsing
// (trace is not registered in the app yet, so not through runSim).
func runTrace(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	app := &cli.App{Name: "sim", Writer: &out, ErrWriter: io.Discard, Commands: []*cli.Command{traceCommand()},
		ExitErrHandler: func(*cli.Context, error) {}}
	strict(app) // as newApp wires it: argument and flag checks included
	err := app.Run(append([]string{"sim", "trace"}, args...))
	return out.String(), err
}

const traceScenario = "testdata/small.yaml"

func generatorJobs(t *testing.T, seed uint64) (*scenario.Scenario, []workloads.Job) {
	t.Helper()
	sc, err := scenario.LoadScenario(traceScenario)
	if err != nil {
		t.Fatal(err)
	}
	g, err := workloads.NewGenerator(sc.Workload, sc.Catalogue(), sc.Duration, seed)
	if err != nil {
		t.Fatal(err)
	}
	var jobs []workloads.Job
	for j, ok := g.Next(); ok; j, ok = g.Next() {
		jobs = append(jobs, j)
	}
	return sc, jobs
}

func readAll(t *testing.T, src workloads.Source) []workloads.Job {
	t.Helper()
	var jobs []workloads.Job
	for j, ok := src.Next(); ok; j, ok = src.Next() {
		jobs = append(jobs, j)
	}
	if err := src.Err(); err != nil {
		t.Fatal(err)
	}
	return jobs
}

// TestTraceGenValidateReplay: gen writes the generator's stream; validate
// passes it; openJobTrace replays it job for job, afresh on every call.
func TestTraceGenValidateReplay(t *testing.T) {
	sc, want := generatorJobs(t, 5)
	for _, format := range []string{"jsonl", "csv"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "jobs."+format)
			out, err := runTrace(t, "gen", "--scenario", traceScenario, "--seed", "5", "--out", path)
			if err != nil {
				t.Fatal(err)
			}
			if wantOut := "wrote " + strconv.Itoa(len(want)) + " jobs"; !strings.Contains(out, wantOut) {
				t.Errorf("gen printed %q, want %q", out, wantOut)
			}
			out, err = runTrace(t, "validate", "--scenario", traceScenario, path)
			if err != nil {
				t.Fatalf("validate: %v\n%s", err, out)
			}
			if wantOut := path + ": " + strconv.Itoa(len(want)) + " records, " + strconv.Itoa(len(want)) + " good, 0 bad\n"; out != wantOut {
				t.Errorf("validate printed %q, want %q", out, wantOut)
			}
			var stderr bytes.Buffer
			trace, err := openJobTrace(path, sc, false, &stderr)
			if err != nil {
				t.Fatal(err)
			}
			for run := 0; run < 2; run++ {
				src, err := trace.Sources()()
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, readAll(t, src)); diff != "" {
					t.Fatalf("run %d: replayed jobs differ (-want +got):\n%s", run, diff)
				}
			}
			if err := trace.Verdict(&stderr); err != nil {
				t.Errorf("a good trace was refused: %v", err)
			}
			if stderr.Len() != 0 {
				t.Errorf("a good trace printed %q", stderr.String())
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("gen left %d files, want 1", len(entries))
			}
		})
	}
}

// TestTraceGenLeavesNothing: a failing gen leaves no file, partial or
// temporary.
func TestTraceGenLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"bad scenario", []string{"gen", "--scenario", filepath.Join(dir, "none.yaml"), "--out", filepath.Join(dir, "a.jsonl")}, "none.yaml"},
		{"bad format", []string{"gen", "--scenario", traceScenario, "--format", "xml", "--out", filepath.Join(dir, "b.jsonl")}, `unknown trace format "xml"`},
		{"missing dir", []string{"gen", "--scenario", traceScenario, "--out", filepath.Join(dir, "no", "c.jsonl")}, "the directory " + filepath.Join(dir, "no") + " does not exist (create it first)"},
		{"no out", []string{"gen", "--scenario", traceScenario}, "out"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runTrace(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	// A write failing half-way leaves nothing either.
	path := filepath.Join(dir, "d.jsonl")
	err := results.WriteAtomic(path, func(w io.Writer) error {
		io.WriteString(w, strings.Repeat("x", 3<<20))
		return errors.New("disk on fire")
	})
	if err == nil || err.Error() != "disk on fire" {
		t.Fatalf("error %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("failures left %v behind", names)
	}
}

// badTrace writes a trace with two bad records among good ones.
func badTrace(t *testing.T, dir string, tail string) (path string, good int) {
	t.Helper()
	rec := func(id, at, model string) string {
		return `{"v":1,"id":"` + id + `","arrival_s":` + at + `,"account":"a","project":"a/p","batch":"b","model":"` + model + `","class":"agent","seed":1}` + "\n"
	}
	text := rec("1", "1", "hot-a") + rec("2", "2", "gpt-9") + rec("3", "3", "hot-b") + rec("1", "4", "hot-a") + rec("5", "5", tail)
	path = filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, 3
}

// TestTraceRefused: a bad trace is refused with every problem listed, or,
// with skipInvalid, replayed without its bad records after saying so.
func TestTraceRefused(t *testing.T) {
	dir := t.TempDir()
	sc, err := scenario.LoadScenario(traceScenario)
	if err != nil {
		t.Fatal(err)
	}
	tail := sc.Catalogue()[len(sc.Catalogue())-1]
	path, good := badTrace(t, dir, tail)
	wantErrs := []string{path + `:2: model: unknown model "gpt-9"`, path + `:4: id: duplicate id "1" (first at line 1)`}

	out, err := runTrace(t, "validate", "--scenario", traceScenario, path)
	if err == nil || !strings.Contains(err.Error(), "2 bad records") {
		t.Errorf("validate error %v, want one counting 2 bad records", err)
	}
	if want := strings.Join(wantErrs, "\n") + "\n" + path + ": 5 records, 3 good, 2 bad\n"; out != want {
		t.Errorf("validate printed (-want +got):\n%s", cmp.Diff(want, out))
	}

	// Validated beside the runs: a reader that reaches the end of the trace
	// waits for the verdict and ends with the refusal, the refusal itself
	// comes from the verdict, and a reader opened after it replays nothing.
	var stderr bytes.Buffer
	refused, err := openJobTrace(path, sc, false, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	early, err := refused.Sources()()
	if err != nil {
		t.Fatal(err)
	}
	for _, ok := early.Next(); ok; _, ok = early.Next() {
	}
	if !errors.Is(early.Err(), workloads.ErrTraceRefused) {
		t.Errorf("a reader at the end of a refused trace ended with %v, want the refusal", early.Err())
	}
	if err := refused.Verdict(&stderr); err == nil {
		t.Fatal("a bad trace was accepted")
	} else {
		for _, w := range wantErrs {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("refusal %q lacks %q", err, w)
			}
		}
	}
	src, err := refused.Sources()()
	if err != nil {
		t.Fatal(err)
	}
	if j, ok := src.Next(); ok || !errors.Is(src.Err(), workloads.ErrTraceRefused) {
		t.Errorf("after the refusal a reader gave job %v (ok %v) and error %v", j.ID, ok, src.Err())
	}
	if stderr.Len() != 0 {
		t.Errorf("a refused trace printed %q beside its refusal", stderr.String())
	}
	trace, err := openJobTrace(path, sc, true, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range append(wantErrs, "skipping 2 bad records") {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("stderr %q lacks %q", stderr.String(), w)
		}
	}
	src, err = trace.Sources()()
	if err != nil {
		t.Fatal(err)
	}
	jobs := readAll(t, src)
	var ids []string
	for _, j := range jobs {
		ids = append(ids, sc.Catalogue()[j.Model])
	}
	if diff := cmp.Diff([]string{"hot-a", "hot-b", tail}, ids); diff != "" || len(jobs) != good {
		t.Errorf("skipping replay (-want +got):\n%s", diff)
	}
}

// TestTraceStats: the tables count what the generator made.
func TestTraceStats(t *testing.T) {
	sc, jobs := generatorJobs(t, 9)
	path := filepath.Join(t.TempDir(), "jobs.csv")
	if _, err := runTrace(t, "gen", "--scenario", traceScenario, "--seed", "9", "--out", path); err != nil {
		t.Fatal(err)
	}
	out, err := runTrace(t, "stats", "--scenario", traceScenario, "--bucket", "30m", path)
	if err != nil {
		t.Fatal(err)
	}
	perModel := map[string]int{}
	buckets := map[int]int{}
	for _, j := range jobs {
		perModel[sc.Catalogue()[j.Model]]++
		buckets[int(j.Arrival.Minutes()/30)]++
	}
	if !strings.Contains(out, strconv.Itoa(len(jobs))+" jobs") {
		t.Errorf("stats lack the job count %d:\n%s", len(jobs), out)
	}
	for m, n := range perModel {
		if !regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(m) + `\s+` + strconv.Itoa(n) + `\s`).MatchString(out) {
			t.Errorf("stats lack the row %s %d:\n%s", m, n, out)
		}
	}
	for i, n := range buckets {
		from := (30 * time.Minute * time.Duration(i)).String()
		if !regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(from) + `\s+\S+\s+` + strconv.Itoa(n) + `\s`).MatchString(out) {
			t.Errorf("stats lack the bucket %s: %d:\n%s", from, n, out)
		}
	}
	for _, want := range []string{"jobs per project", "jobs per tier", "calls per job", "input tokens per call", "output tokens per call"} {
		if !strings.Contains(out, want) {
			t.Errorf("stats lack %q", want)
		}
	}
}

// TestTraceStatsRequests: request traces are recognised and counted.
func TestTraceStatsRequests(t *testing.T) {
	samples := filepath.Join("..", "workloads", "testdata", "traces")
	for _, tc := range []struct {
		file, format string
		rows         int
	}{
		{filepath.Join(samples, "AzureLLMInferenceTrace_code.sample.csv"), "", 2000},
		{filepath.Join(samples, "mooncake_conversation_trace.sample.jsonl"), "mooncake", 1000},
		{"embedded:AzureLLMInferenceTrace_conv.csv.gz", "", 19366},
	} {
		t.Run(tc.file, func(t *testing.T) {
			args := []string{"stats", tc.file}
			if tc.format != "" {
				args = []string{"stats", "--format", tc.format, tc.file}
			}
			out, err := runTrace(t, args...)
			if err != nil {
				t.Fatal(err)
			}
			if want := ": " + strconv.Itoa(tc.rows) + " requests"; !strings.Contains(out, want) {
				t.Errorf("stats lack %q:\n%s", want, out)
			}
		})
	}
}

// TestTraceFormatFlagRefused: an unknown --format is refused where the flag
// is read, naming the flag and the formats the command takes, before any
// file is opened or written.
func TestTraceFormatFlagRefused(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"gen", []string{"gen", "--scenario", traceScenario, "--format", "xml", "--out", filepath.Join(dir, "a.jsonl")},
			`--format: unknown trace format "xml" (want jsonl or csv)`},
		{"gen, a request format", []string{"gen", "--scenario", traceScenario, "--format", "azure", "--out", filepath.Join(dir, "b.csv")},
			`--format: unknown trace format "azure" (want jsonl or csv)`},
		{"validate", []string{"validate", "--scenario", traceScenario, "--format", "parquet", filepath.Join(dir, "none.jsonl")},
			`--format: unknown trace format "parquet" (want jsonl or csv)`},
		{"stats", []string{"stats", "--scenario", traceScenario, "--format", "parquet", filepath.Join(dir, "none.jsonl")},
			`--format: unknown trace format "parquet" (want jsonl, csv, azure, mooncake or gateway)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runTrace(t, tc.args...)
			if err == nil {
				t.Fatal("accepted")
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused --format left %d files", len(entries))
	}
}
