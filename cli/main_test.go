package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/evalsched/lab/results"
)

// TestMain lets the test binary act as the sim command, so tests check real
// exit codes and output without building a separate binary.
func TestMain(m *testing.M) {
	if os.Getenv("SIM_TEST_AS_MAIN") == "1" {
		os.Exit(Main(os.Args))
	}
	os.Exit(m.Run())
}

func runSim(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "SIM_TEST_AS_MAIN=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// runSimHere runs `sim ARGS` in the test's own process: Main's command,
// exit code and output (runApp) without its signal handler and without a
// process start, which costs ~60 ms of CPU on the lab's machine (the
// broken-input sets run several hundred commands each). A panic in the
// command fails the test as one in a child would.
func runSimHere(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	app := newApp()
	var out, errb lockedBuffer
	app.Writer, app.ErrWriter = &out, &errb
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("sim %s: panic: %v\n%s", strings.Join(args, " "), r, debug.Stack())
		}
	}()
	code = runApp(app, append([]string{"sim"}, args...))
	return out.String(), errb.String(), code
}

// lockedBuffer is a bytes.Buffer safe for a command's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestRunEmbedded(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := runSim(t, "run", "--out", dir, "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"model", "jobs/h", "gpt-5.5", "(all)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	var s struct {
		SchemaVersion int `json:"schema_version"`
		Runs          []struct {
			Policy string `json:"policy"`
			Lanes  []struct {
				Model      string  `json:"model"`
				Completed  int64   `json:"completed"`
				Throughput float64 `json:"throughput_per_hour"`
			} `json:"lanes"`
		} `json:"runs"`
	}
	readJSON(t, filepath.Join(dir, "summary.json"), &s)
	if s.SchemaVersion != results.SchemaVersion || len(s.Runs) != 1 || s.Runs[0].Policy != "fixed-lane" || len(s.Runs[0].Lanes) < 7 {
		t.Fatalf("summary.json misses the documented fields: %+v", s)
	}
	series, err := os.ReadFile(filepath.Join(dir, "series.csv"))
	if err != nil || !strings.HasPrefix(string(series), "policy,t_s,model,") {
		t.Fatalf("series.csv missing or without header: %v", err)
	}
}

// TestBadInput: every kind of bad input exits non-zero with a message naming
// the problem, and leaves no output behind.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	malformed := write("malformed.yaml", "name: x\nduration: [1h\n")
	zeroRate := write("zero.yaml", "name: x\nduration: 1h\ncontainers: {capacity: 10}\nmodels:\n  - {name: m, streams: 1, decode_rate: 0}\n")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"malformed yaml", []string{"run", "--scenario", malformed}, "malformed.yaml"},
		{"zero decode rate", []string{"run", "--scenario", zeroRate}, "zero.yaml:5: models[0].decode_rate: must be > 0"},
		{"missing file", []string{"run", "--scenario", filepath.Join(dir, "nope.yaml")}, "nope.yaml"},
		{"unknown policy", []string{"run", "--policy", "magic"}, "--policy: unknown \"magic\""},
		{"bad seed", []string{"run", "--seed", "-4"}, "seed"},
		{"unknown flag", []string{"run", "--sed", "4"}, "sed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-"))
			_, stderr, code := runSim(t, append(tc.args, "--out", out)...)
			if code == 0 {
				t.Fatal("bad input exited 0")
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q lacks %q", stderr, tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("bad input left output behind at %s", out)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	for _, cmd := range [][]string{{"--help"}, {"run", "--help"}, {"scenarios", "--help"}} {
		stdout, _, code := runSim(t, cmd...)
		if code != 0 || !strings.Contains(stdout, "USAGE") {
			t.Errorf("%v: exit %d, output %q", cmd, code, stdout)
		}
	}
}

// TestCompareReport: compare --report writes a self-contained report.
func TestCompareReport(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := runSim(t, "compare", "--scenario", "testdata/small.yaml", "--out", dir, "--report")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(html), "data:image/png;base64,"); n < 5 {
		t.Errorf("report.html inlines %d images, want every figure", n)
	}
	for _, bad := range []string{"http://", "https://", "src=\"figures/"} {
		if strings.Contains(string(html), bad) {
			t.Errorf("report.html contains %q: not self-contained", bad)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "report.md")); err != nil {
		t.Error(err)
	}
}

// TestTraceCLI: gen → validate → run --trace; a corrupted trace is refused
// with its line and field and leaves no output, unless --skip-invalid.
func TestTraceCLI(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "jobs.jsonl")
	if _, stderr, code := runSim(t, "trace", "gen", "--scenario", "testdata/small.yaml", "--seed", "3", "--out", trace); code != 0 {
		t.Fatalf("trace gen: exit %d: %s", code, stderr)
	}
	if out, stderr, code := runSim(t, "trace", "validate", "--scenario", "testdata/small.yaml", trace); code != 0 {
		t.Fatalf("trace validate of a generated trace: exit %d: %s%s", code, out, stderr)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) < 10 {
		t.Fatalf("trace too short: %d lines", len(lines))
	}
	lines[4] = strings.Replace(lines[4], `"model":"`, `"model":"no-such-`, 1)
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runSim(t, "trace", "validate", "--scenario", "testdata/small.yaml", bad)
	if code == 0 || !strings.Contains(out+stderr, "bad.jsonl:5: model") {
		t.Errorf("validate of a bad trace: exit %d, output %q %q; want bad.jsonl:5: model", code, out, stderr)
	}
	refused := filepath.Join(dir, "refused")
	if _, stderr, code := runSim(t, "run", "--scenario", "testdata/small.yaml", "--trace", bad, "--out", refused); code == 0 || !strings.Contains(stderr, "bad.jsonl:5") {
		t.Errorf("run with a bad trace: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(refused); !os.IsNotExist(err) {
		t.Errorf("a refused trace left output at %s", refused)
	}
	skipped := filepath.Join(dir, "skipped")
	if _, stderr, code := runSim(t, "run", "--scenario", "testdata/small.yaml", "--trace", bad, "--skip-invalid", "--out", skipped); code != 0 || !strings.Contains(stderr, "bad.jsonl:5") {
		t.Errorf("run --skip-invalid: exit %d, stderr %q (want the skipped record listed)", code, stderr)
	}
}

// TestCompareSeeds: --seeds K reports each lane's multiplier over K seeds,
// and its mean equals the geometric mean of K single-seed comparisons run
// separately.
func TestCompareSeeds(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, code := runSim(t, "compare", "--scenario", "testdata/small.yaml", "--seed", "5", "--seeds", "3", "--out", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	type cmpRow struct {
		Model      string   `json:"model"`
		Multiplier *float64 `json:"multiplier"`
	}
	var s struct {
		Seeds []uint64 `json:"seeds"`
		Stats []struct {
			Model string  `json:"model"`
			Seeds int     `json:"seeds"`
			Mean  float64 `json:"mean"`
			Low   float64 `json:"ci95_low"`
			High  float64 `json:"ci95_high"`
		} `json:"multiplier_across_seeds"`
	}
	readJSON(t, filepath.Join(dir, "summary.json"), &s)
	if len(s.Seeds) != 3 || s.Seeds[0] != 5 || s.Seeds[2] != 7 {
		t.Fatalf("seeds = %v, want [5 6 7]", s.Seeds)
	}
	// Independently: three single-seed compares.
	sum := 0.0
	for seed := 5; seed <= 7; seed++ {
		one := t.TempDir()
		if _, stderr, code := runSim(t, "compare", "--scenario", "testdata/small.yaml", "--seed", strconv.Itoa(seed), "--out", one); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var r struct {
			Comparison []cmpRow `json:"comparison"`
		}
		readJSON(t, filepath.Join(one, "summary.json"), &r)
		for _, c := range r.Comparison {
			if c.Model == "hot-a" {
				sum += math.Log(*c.Multiplier)
			}
		}
	}
	for _, st := range s.Stats {
		if st.Model != "hot-a" {
			continue
		}
		if want := math.Exp(sum / 3); st.Seeds != 3 || math.Abs(st.Mean-want) > 1e-9 || !(0 < st.Low && st.Low <= st.Mean && st.Mean <= st.High) {
			t.Errorf("hot-a over seeds: %+v, want geometric mean %v inside its positive interval", st, want)
		}
		return
	}
	t.Fatal("no multiplier over seeds for hot-a")
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
}

// TestErrWriter runs the app in-process: progress and "wrote" lines go to the
// app's ErrWriter, the table to its Writer, so an embedding program (or a
// test) captures both.
func TestErrWriter(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	app := newApp()
	app.Writer, app.ErrWriter = &out, &errb
	if err := app.Run([]string{"sim", "run", "--out", dir, "--seed", "2"}); err != nil {
		t.Fatal(err)
	}
	if want := "wrote " + dir + "/: summary.json"; !strings.Contains(errb.String(), want) {
		t.Errorf("ErrWriter got %q, want it to contain %q", errb.String(), want)
	}
	if strings.Contains(out.String(), "wrote ") || !strings.Contains(out.String(), "(all)") {
		t.Errorf("Writer got %q: want the table and no \"wrote\" line", out.String())
	}
}
