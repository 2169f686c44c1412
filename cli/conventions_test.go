package cli

import (
	"encoding/json"
	"github.com/evalsched/lab/scenario"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExitCodes: the commands that end in each exit code end in it (the
// README's table is checked against the codes by TestExitCodesDocumented).
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	gate := gateFile(t, dir, "g.yaml", "{target_depth: 10}")
	infeasible := filepath.Join(dir, "tune.yaml")
	os.WriteFile(infeasible, []byte("scenario: "+abs(t, "testdata/small.yaml")+"\noverlay: {duration: 20m, warmup: 5m, events: []}\nseeds: 1\n"+
		"params:\n  - {key: policies.scheduler.target_depth, min: 2, max: 40, integer: true}\n"+
		"objective: {metric: throughput_per_hour, goal: max}\nconstraints:\n  - {metric: p90_job_time_s, max: 0.001}\nbudget: 2\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"ok", []string{"scenarios"}, 0},
		{"a refused scenario file", []string{"run", "--scenario", filepath.Join(dir, "missing.yaml")}, exitError},
		{"an unknown command", []string{"nope"}, exitUsage},
		{"an unknown flag", []string{"run", "--nope"}, exitUsage},
		{"a bad flag value: --policy", []string{"run", "--policy", "nope"}, exitUsage},
		{"a bad flag value: --variant", []string{"compare", "--variant", "x", "--variant", "y"}, exitUsage},
		{"a bad flag value: --max-memory", []string{"run", "--max-memory", "lots"}, exitUsage},
		{"a missing required flag", []string{"trace", "gen"}, exitUsage},
		{"an empty path", []string{"run", "--out", ""}, exitUsage},
		{"an unexpected argument", []string{"run", "extra"}, exitUsage},
		{"a gate without baselines", []string{"gate", "--out", filepath.Join(dir, "gate"), gate}, exitStale},
		{"a tune with no feasible setting", []string{"tune", "--out", filepath.Join(dir, "tune"), infeasible}, exitInfeasible},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, stderr, code := runSim(t, tc.args...); code != tc.want {
				t.Errorf("sim %s: exit %d, want %d\n%s", strings.Join(tc.args, " "), code, tc.want, stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "tune", "tune.csv")); err != nil {
		t.Errorf("an infeasible tune keeps its evaluations: %v", err)
	}
}

func abs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestVersion: --version names the revision when git can tell it (the
// test binary has no VCS stamp, so this is the git fallback).
func TestVersion(t *testing.T) {
	out := mustSimOut(t, "--version")
	if !strings.HasPrefix(out, "sim version ") {
		t.Fatalf("--version: %q", out)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git: the version has no revision")
	}
	head, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	if !strings.Contains(out, strings.TrimSpace(string(head))) {
		t.Errorf("--version %q lacks HEAD %s", out, head)
	}
}

// TestEnvironment: SIM_SCENARIO, SIM_SEED and SIM_OUT stand in for
// --scenario, --seed and --out; a flag wins over its variable.
func TestEnvironment(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "env")
	env := []string{"SIM_SCENARIO=" + abs(t, "testdata/small.yaml"), "SIM_SEED=7", "SIM_OUT=" + out}
	if _, stderr, code := runSimEnv(t, env, "run"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s struct {
		Scenario string `json:"scenario"`
		Seed     uint64 `json:"seed"`
	}
	readJSON(t, filepath.Join(out, "summary.json"), &s)
	if s.Scenario != "small" || s.Seed != 7 {
		t.Errorf("summary %+v, want small seed 7 from the environment", s)
	}
	flagged := filepath.Join(dir, "flag")
	if _, stderr, code := runSimEnv(t, env, "run", "--seed", "3", "--out", flagged); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	readJSON(t, filepath.Join(flagged, "summary.json"), &s)
	if s.Seed != 3 {
		t.Errorf("--seed 3 with SIM_SEED=7: seed %d", s.Seed)
	}
}

// TestCompletion: a script per shell, bash's valid bash that completes the
// commands; an unknown shell is a usage error.
func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		out := mustSimOut(t, "completion", shell)
		if !strings.Contains(out, "sim") || len(out) < 100 {
			t.Errorf("%s: %q", shell, out)
		}
		if shell == "bash" {
			if err := exec.Command("bash", "-n", "-c", out).Run(); err != nil {
				t.Errorf("bash -n: %v", err)
			}
		}
	}
	words := mustSimOut(t, "--generate-bash-completion")
	for _, c := range []string{"run", "compare", "gate", "completion", "scenarios"} {
		if !strings.Contains(words, c+"\n") {
			t.Errorf("completion words lack %s:\n%s", c, words)
		}
	}
	if _, _, code := runSim(t, "completion", "tcsh"); code != exitUsage {
		t.Errorf("completion tcsh: exit %d, want %d", code, exitUsage)
	}
}

// TestScenariosList: a line per embedded scenario with its variants, and
// the same as JSON, whose description is the scenario's whole (the table's
// is cut to its first sentence).
func TestScenariosList(t *testing.T) {
	var list []scenarioInfo
	if err := json.Unmarshal([]byte(mustSimOut(t, "scenarios", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	text := mustSimOut(t, "scenarios")
	byName := map[string]scenarioInfo{}
	for _, s := range list {
		byName[s.Name] = s
		if s.Description == "" || !strings.Contains(text, s.Name+" ") {
			t.Errorf("%s: no description or no line: %+v", s.Name, s)
		}
	}
	for name, s := range byName {
		sc, err := scenario.LoadScenario("embedded:" + name)
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Join(strings.Fields(sc.Description), " "); s.Description != want {
			t.Errorf("%s: --json description %q, want the whole %q", name, s.Description, want)
		}
	}
	if v := byName["incident-0214"].Variants; len(v) < 10 || !strings.Contains(text, strings.Join(v[:3], ", ")) {
		t.Errorf("incident-0214's variants: %v", v)
	}
	files, err := filepath.Glob("../scenario/scenarios/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no embedded scenario files: %v", err)
	}
	if len(byName) != len(files) {
		t.Errorf("%d scenarios listed, %d files embedded", len(byName), len(files))
	}
}

// TestDashAndJSON: trace gen --out - writes the trace to stdout, trace
// stats reads it from stdin (-), and trace stats, sweep and tune print JSON
// with --json; sweep writes a Markdown table with --markdown.
func TestDashAndJSON(t *testing.T) {
	dir := t.TempDir()
	trace := mustSimOut(t, "trace", "gen", "--scenario", "testdata/small.yaml", "--seed", "2", "--out", "-")
	file := filepath.Join(dir, "t.jsonl")
	mustSim(t, nil, "trace", "gen", "--scenario", "testdata/small.yaml", "--seed", "2", "--out", file)
	if data, _ := os.ReadFile(file); string(data) != trace || trace == "" {
		t.Errorf("--out - wrote %d bytes, the file %d", len(trace), len(data))
	}
	cmd := exec.Command(os.Args[0], "trace", "stats", "--json", "--scenario", "testdata/small.yaml", "-")
	cmd.Env = append(os.Environ(), "SIM_TEST_AS_MAIN=1")
	cmd.Stdin = strings.NewReader(trace)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Jobs int `json:"jobs"`
	}
	if err := json.Unmarshal(out, &st); err != nil || st.Jobs != strings.Count(trace, "\n") {
		t.Errorf("stats of stdin: %v, %d jobs for %d lines", err, st.Jobs, strings.Count(trace, "\n"))
	}

	md := filepath.Join(dir, "sweep.md")
	sweepOut := mustSimOut(t, "sweep", "--json", "--markdown", md, "--out", filepath.Join(dir, "sweep"), "testdata/sweep.yaml")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(sweepOut), &rows); err != nil {
		t.Fatalf("sweep --json: %v\n%s", err, sweepOut)
	}
	summary, err := readCSVFile(filepath.Join(dir, "sweep", "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(summary)-1 || rows[0]["metric"] != summary[1][slicesIndex(summary[0], "metric")] {
		t.Errorf("sweep --json: %d rows for %d in summary.csv", len(rows), len(summary)-1)
	}
	text, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(text), "\n| p0"); n != len(summary)-1 {
		t.Errorf("markdown: %d point rows for %d:\n%s", n, len(summary)-1, text)
	}

	tune := filepath.Join(dir, "tune.yaml")
	os.WriteFile(tune, []byte("scenario: "+abs(t, "testdata/small.yaml")+"\noverlay: {duration: 20m, warmup: 5m, events: []}\nseeds: 1\n"+
		"params:\n  - {key: policies.scheduler.target_depth, min: 2, max: 40, integer: true}\n"+
		"objective: {metric: throughput_per_hour, goal: max}\nbudget: 2\n"), 0o644)
	var best struct {
		Best    map[string]float64 `json:"best"`
		Overlay string             `json:"overlay"`
	}
	if err := json.Unmarshal([]byte(mustSimOut(t, "tune", "--json", "--out", filepath.Join(dir, "tune"), tune)), &best); err != nil {
		t.Fatal(err)
	}
	if _, ok := best.Best["policies.scheduler.target_depth"]; !ok || !strings.Contains(best.Overlay, "target_depth:") {
		t.Errorf("tune --json: %+v", best)
	}
}

func slicesIndex(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
