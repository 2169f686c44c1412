package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// runSimIn runs sim (this test binary as main) in dir with env added.
func runSimIn(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "SIM_TEST_AS_MAIN=1"), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// lockFiles lists the .NAME.lock files in dir.
func lockFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".*.lock"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestGateWorkflowReruns: the gate step of the shipped GitHub workflow
// (--junit inside --out), run as written from the repository's root,
// succeeds twice in a row — its JUnit file is its own on the next run —
// and leaves no lock file; a file of the user's in its --out is still
// refused, again leaving no lock file.
func TestGateWorkflowReruns(t *testing.T) {
	data, err := os.ReadFile("../examples/github/sim-gate.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			if rest, ok := strings.CutPrefix(s.Run, "bin/sim gate "); ok {
				args = append([]string{"gate"}, strings.Fields(rest)...)
			}
		}
	}
	if !strings.Contains(strings.Join(args, " "), "--out gate-out --junit gate-out/junit.xml") {
		t.Fatalf("test bug: the workflow's gate step moved: %q", args)
	}
	// The repository's root as the runner sees it: the folders the gate
	// file reads, nothing else.
	root := t.TempDir()
	for _, d := range []string{"examples", "results", "cli"} {
		abs, err := filepath.Abs(filepath.Join("..", d))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(root, d)); err != nil {
			t.Fatal(err)
		}
	}
	summary := filepath.Join(t.TempDir(), "summary.md")
	env := []string{"GITHUB_STEP_SUMMARY=" + summary}
	for run := 1; run <= 2; run++ {
		if _, stderr, code := runSimIn(t, root, env, args...); code != 0 {
			t.Fatalf("run %d: exit %d: %s", run, code, stderr)
		}
		for _, f := range []string{"verdict.json", "junit.xml"} {
			if _, err := os.Stat(filepath.Join(root, "gate-out", f)); err != nil {
				t.Errorf("run %d: %v", run, err)
			}
		}
		if l := lockFiles(t, root); len(l) > 0 {
			t.Errorf("run %d left lock files: %v", run, l)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "gate-out", "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runSimIn(t, root, env, args...); code != exitError || !strings.Contains(stderr, "files sim did not write (notes.txt)") {
		t.Errorf("a file of the user's in --out: exit %d, %s; want %d naming only notes.txt", code, stderr, exitError)
	}
	if l := lockFiles(t, root); len(l) > 0 {
		t.Errorf("the refused run left lock files: %v", l)
	}
}

// TestLockFilesIgnored: the repository ignores the lock files commands
// leave when killed (.NAME.lock beside an --out).
func TestLockFilesIgnored(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, p := range []string{".out.lock", ".gate-out.lock", ".docs.lock", "cli/.x.lock"} {
		if out, err := exec.Command("git", "-C", "..", "check-ignore", "--no-index", "-q", p).CombinedOutput(); err != nil {
			t.Errorf("%s is not ignored by .gitignore: %v %s", p, err, out)
		}
	}
}

// verdictFile is what TestGateNoVerdict reads of verdict.json (its own
// type: the lab's may change under it).
type verdictFile struct {
	Pass    bool   `json:"pass"`
	Outcome string `json:"outcome"`
	Reason  string `json:"reason"`
}

// TestGateNoVerdict: a gate that ends without a verdict — a baseline that
// no longer pins what it runs (exit 5), a baseline file it cannot read
// (exit 1), a check that could never fail (exit 1) — replaces the passing verdict of
// the run before in verdict.json, the JUnit file (inside --out), the
// Markdown file (outside it) and the step summary with "no verdict" and
// the reason.
func TestGateNoVerdict(t *testing.T) {
	dir := t.TempDir()
	good := gateFile(t, dir, "good.yaml", "{target_depth: 10}")
	worse := gateFile(t, dir, "worse.yaml", "{target_depth: 10, max_limit: 3}")
	text, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.yaml")
	os.WriteFile(cut, bytes.Replace(text, []byte("baselines/small.json"), []byte("baselines/cut.json"), 1), 0o644)
	os.MkdirAll(filepath.Join(dir, "baselines"), 0o755)
	os.WriteFile(filepath.Join(dir, "baselines", "cut.json"), []byte(`{"schema": "evalsched-gate-baseline", "scenar`), 0o644)
	never := filepath.Join(dir, "never.yaml")
	os.WriteFile(never, append(text, "  - {metric: jain, ceiling: {threshold: 1}}\n"...), 0o644)
	mustSim(t, nil, "gate", "--out", filepath.Join(dir, "base"), "--update", "--reason", "test baselines", good)

	out := filepath.Join(dir, "out")
	junit, md, summary := filepath.Join(out, "junit.xml"), filepath.Join(dir, "gate.md"), filepath.Join(dir, "summary.md")
	env := []string{"GITHUB_STEP_SUMMARY=" + summary}
	flags := []string{"gate", "--out", out, "--junit", junit, "--markdown", md}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		reason string
	}{
		{"stale baseline", []string{worse}, exitStale, "does not pin what the gate runs"},
		{"baseline cut short", []string{cut}, exitError, "cut.json"},
		{"a check that could never fail", []string{never}, exitError, "never.yaml:12: checks[4].ceiling.threshold"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, stderr, code := runSimEnv(t, env, append(flags, good)...); code != 0 {
				t.Fatalf("the passing run before: exit %d: %s", code, stderr)
			}
			stdout, stderr, code := runSimEnv(t, env, append(flags, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, stderr)
			}
			var v verdictFile
			readJSON(t, filepath.Join(out, "verdict.json"), &v)
			if v.Pass || v.Outcome != "no verdict" || !strings.Contains(v.Reason, tc.reason) {
				t.Errorf("verdict.json: %+v; want no verdict, a reason naming %q", v, tc.reason)
			}
			x, err := os.ReadFile(junit)
			if err != nil {
				t.Fatal(err)
			}
			if s := string(x); !strings.Contains(s, `type="no-verdict"`) || !strings.Contains(s, tc.reason) || strings.Contains(s, `errors="0"`) {
				t.Errorf("junit.xml does not say no verdict and why:\n%s", s)
			}
			m, err := os.ReadFile(md)
			if err != nil {
				t.Fatal(err)
			}
			if s := string(m); !strings.Contains(s, "NO VERDICT") || !strings.Contains(s, tc.reason) || strings.Contains(s, "PASS") {
				t.Errorf("%s does not say no verdict and why:\n%s", md, s)
			}
			sm, err := os.ReadFile(summary)
			if err != nil {
				t.Fatal(err)
			}
			parts := strings.Split(string(sm), "### sim gate")
			if last := parts[len(parts)-1]; !strings.Contains(last, "NO VERDICT") || !strings.Contains(last, tc.reason) {
				t.Errorf("the step summary's last section does not say no verdict:\n%s", last)
			}
			if !strings.Contains(stderr, "::error title=sim gate%3A no verdict::") {
				t.Errorf("no annotation for the missing verdict:\n%s", stderr)
			}
			if stdout != "" {
				t.Errorf("stdout holds a table without a verdict:\n%s", stdout)
			}
		})
	}
}

// TestGateRefusesUncrossableLimits: a floor or ceiling no value of its
// figure can cross — a fixed jain floor at 0 (jain is never below 0), a
// throughput floor 100000 jobs/h under a baseline of some hundreds — is
// refused at its line, exit 1, before anything runs, and --update does not
// write a baseline that would make one.
func TestGateRefusesUncrossableLimits(t *testing.T) {
	dir := t.TempDir()
	good := gateFile(t, dir, "good.yaml", "{target_depth: 10}")
	mustSim(t, nil, "gate", "--out", filepath.Join(dir, "base"), "--update", "--reason", "test baselines", good)
	baseline := filepath.Join(dir, "baselines", "small.json")
	before, err := os.ReadFile(baseline)
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	bad := func(name, old, new string) string {
		if !bytes.Contains(text, []byte(old)) {
			t.Fatalf("test bug: %q not in the gate file", old)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, bytes.Replace(text, []byte(old), []byte(new), 1), 0o644)
		return p
	}
	throughput := bad("throughput.yaml", `hot-b], floor: {relative: 0.05}}`, `hot-b], floor: {absolute: 100000}}`)
	jain := bad("jain.yaml", "  - {metric: outage_minutes, ceiling: {threshold: 0}}\n", "  - {metric: outage_minutes, ceiling: {threshold: 0}}\n  - {metric: jain, floor: {threshold: 0}}\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"spread floor below 0 jobs/h", []string{throughput}, "throughput.yaml:8: checks[0].floor: "},
		{"spread floor below 0 jobs/h, --update", []string{"--update", "--reason", "x", throughput}, "throughput.yaml:8: checks[0].floor: "},
		{"fixed jain floor at 0", []string{jain}, "jain.yaml:12: checks[4].floor.threshold: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runSim(t, append([]string{"gate", "--out", filepath.Join(dir, "out")}, tc.args...)...)
			if code != exitError || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "can never fail") {
				t.Errorf("exit %d, %s; want %d naming %q", code, stderr, exitError, tc.want)
			}
			after, err := os.ReadFile(baseline)
			if err != nil || !bytes.Equal(before, after) {
				t.Errorf("the baseline was rewritten (%v)", err)
			}
		})
	}
}

// TestGateUpdateReport: --update prints each checked figure's old and new
// baseline value and the change between them (worked out here from the
// two baseline files); a blank --reason is refused, and so is --reason
// without --update, both before anything is written.
func TestGateUpdateReport(t *testing.T) {
	dir := t.TempDir()
	good := gateFile(t, dir, "good.yaml", "{target_depth: 10}")
	worse := gateFile(t, dir, "worse.yaml", "{target_depth: 10, max_limit: 3}")
	out := filepath.Join(dir, "out")
	mustSim(t, nil, "gate", "--out", out, "--update", "--reason", "first", good)
	baseline := filepath.Join(dir, "baselines", "small.json")
	first, err := os.ReadFile(baseline)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"blank reason", []string{"--update", "--reason", "   ", worse}},
		{"--reason without --update", []string{"--reason", "why", worse}},
	} {
		if _, stderr, code := runSim(t, append([]string{"gate", "--out", out}, tc.args...)...); code != exitUsage || !strings.Contains(stderr, "--reason") {
			t.Errorf("%s: exit %d, %s; want %d", tc.name, code, stderr, exitUsage)
		}
		if now, _ := os.ReadFile(baseline); !bytes.Equal(now, first) {
			t.Errorf("%s: the baseline was rewritten", tc.name)
		}
	}

	stdout := mustSimOut(t, "gate", "--out", out, "--update", "--reason", "cap at 3", worse)
	type figure struct {
		Lane, Metric string
		Mean         float64
	}
	means := func(data []byte) map[[2]string]float64 {
		var b struct {
			Scenarios []struct{ Figures []figure }
		}
		if err := json.Unmarshal(data, &b); err != nil {
			t.Fatal(err)
		}
		m := map[[2]string]float64{}
		for _, f := range b.Scenarios[0].Figures {
			m[[2]string{f.Lane, f.Metric}] = f.Mean
		}
		return m
	}
	second, err := os.ReadFile(baseline)
	if err != nil {
		t.Fatal(err)
	}
	old, now := means(first), means(second)
	if len(now) == 0 {
		t.Fatal("test bug: no figures in the baseline")
	}
	rows := map[[2]string][]string{}
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		if len(f) == 6 && f[0] == "small" {
			rows[[2]string{f[1], f[2]}] = f[3:]
		}
	}
	moved := 0
	for k, n := range now {
		o := old[k]
		change := fmt.Sprintf("%+.1f%%", 100*(n-o)/o)
		if o == 0 {
			change = fmt.Sprintf("%+.4g", n-o)
		}
		if o != n {
			moved++
		}
		want := []string{fmt.Sprintf("%.4g", o), fmt.Sprintf("%.4g", n), change}
		if diff := cmp.Diff(want, rows[k]); diff != "" {
			t.Errorf("%v: old, new, change (-want +got):\n%s", k, diff)
		}
	}
	if moved == 0 {
		t.Errorf("test bug: the cap moved no figure")
	}
	if t.Failed() {
		t.Logf("stdout:\n%s", stdout)
	}
}
