package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGateCI: a gate judging a change that regresses (the scheduler
// capped at 2 jobs a model, against baselines of the uncapped one) writes a
// JUnit case per checked figure, the Markdown table, and under GitHub
// Actions the step summary and an ::error:: annotation per failed figure.
func TestGateCI(t *testing.T) {
	dir := t.TempDir()
	gate := gateFile(t, dir, "g.yaml", "{target_depth: 10}")
	if _, stderr, code := runSim(t, "gate", "--out", filepath.Join(dir, "base"), "--update", "--reason", "test baselines", gate); code != 0 {
		t.Fatalf("gate --update: exit %d: %s", code, stderr)
	}
	junit, md, summary := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "gate.md"), filepath.Join(dir, "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	_, stderr, code := runSim(t, "gate", "--out", filepath.Join(dir, "out"), "--junit", junit, "--markdown", md, "--set", "policies.scheduler.max_limit=2", gate)
	if code != exitRegression {
		t.Fatalf("exit %d, want %d: %s", code, exitRegression, stderr)
	}
	v := readVerdict(t, filepath.Join(dir, "out"))
	x, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(x), "<testcase "); n != len(v.Rows) || n == 0 {
		t.Errorf("%d test cases for %d checked figures", n, len(v.Rows))
	}
	if n := strings.Count(stderr, "::error title="); n != v.Missing+v.Regressions {
		t.Errorf("%d annotations for %d failed figures:\n%s", n, v.Missing+v.Regressions, stderr)
	}
	for _, p := range []string{md, summary} {
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(text), "\n| small |"); n != len(v.Rows) || !strings.Contains(string(text), "**FAIL**") {
			t.Errorf("%s: %d rows for %d figures:\n%s", p, n, len(v.Rows), text)
		}
	}
	if xmllint, err := exec.LookPath("xmllint"); err == nil {
		if out, err := exec.Command(xmllint, "--noout", "--schema", "../lab/testdata/junit.xsd", junit).CombinedOutput(); err != nil {
			t.Errorf("xmllint: %v\n%s", err, out)
		}
	}
}
