package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalsched/lab/results"
	"github.com/google/go-cmp/cmp"
)

// readmeExitCodes is the exit column of the README's exit-code table.
func readmeExitCodes(t *testing.T) []int {
	t.Helper()
	var codes []int
	for _, row := range exitTable(t, "../README.md") {
		if strings.HasPrefix(row, "|---") || strings.HasPrefix(row, "| exit |") {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(strings.Split(row, "|")[1]))
		if err != nil {
			t.Fatalf("README exit table row %q: %v", row, err)
		}
		codes = append(codes, n)
	}
	return codes
}

// exitTable is the exit-code table of the Markdown file at path, its rows
// as written.
func exitTable(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "| exit | meaning |"):
			in = true
		case in && strings.HasPrefix(line, "|"):
			rows = append(rows, line)
		case in:
			return rows
		}
	}
	return rows
}

// TestExitTablesAgree: docs/reference/commands.md's exit-code table is the
// README's, row for row, so that what TestExitCodesDocumented holds of the
// one holds of the other.
func TestExitTablesAgree(t *testing.T) {
	readme := exitTable(t, "../README.md")
	if len(readme) < 3 {
		t.Fatalf("README: no exit-code table (%d rows)", len(readme))
	}
	if diff := cmp.Diff(readme, exitTable(t, "../docs/reference/commands.md")); diff != "" {
		t.Errorf("exit-code tables (-README +docs/reference/commands.md):\n%s", diff)
	}
}

// TestExitCodesDocumented: the README's table lists exactly the exit codes
// the code defines, and each code a test can cause cheaply is caused here
// (3 and 4, a regression and a quota refusal, are caused in gate_test.go
// and quota_test.go).
func TestExitCodesDocumented(t *testing.T) {
	var defined []int
	for c := range exitCodes {
		defined = append(defined, c)
	}
	slices.Sort(defined)
	if diff := cmp.Diff(defined, readmeExitCodes(t)); diff != "" {
		t.Errorf("README exit codes (-code +README):\n%s", diff)
	}
	dir := t.TempDir()
	gate := filepath.Join(dir, "g.yaml")
	os.WriteFile(gate, []byte("baseline: none.json\nscenarios:\n  - {name: a, scenario: light-load, seeds: [1]}\nchecks:\n  - {metric: jain, floor: {absolute: 0.1}}\n"), 0o644)
	busy := filepath.Join(dir, "busy")
	unlock, err := results.LockDir(busy)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	for _, tc := range []struct {
		code int
		args []string
	}{
		{0, []string{"scenarios"}},
		{exitError, []string{"run", "--scenario", filepath.Join(dir, "missing.yaml"), "--out", filepath.Join(dir, "o")}},
		{exitUsage, []string{"run", "--bogus"}},
		{exitStale, []string{"gate", "--out", filepath.Join(dir, "g"), gate}},
		{exitBusy, []string{"run", "--scenario", "testdata/small.yaml", "--out", busy}},
	} {
		if _, stderr, code := runSim(t, tc.args...); code != tc.code {
			t.Errorf("sim %s: exit %d, want %d; %s", strings.Join(tc.args, " "), code, tc.code, stderr)
		}
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		out := filepath.Join(dir, "sig-"+strconv.Itoa(int(sig)))
		cmd := exec.Command(os.Args[0], "compare", "--scenario", "default", "--seeds", "4", "--out", out)
		cmd.Env = append(os.Environ(), "SIM_TEST_AS_MAIN=1")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Signal once the command holds its --out lock: its handler is
		// installed by then (main installs it first), however loaded the
		// machine; a fixed sleep raced the start-up under load.
		lock := filepath.Join(dir, ".sig-"+strconv.Itoa(int(sig))+".lock")
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(lock); err == nil {
				break
			}
		}
		cmd.Process.Signal(sig)
		cmd.Wait()
		if got, want := cmd.ProcessState.ExitCode(), exitSignal+int(sig); got != want {
			t.Errorf("%v: exit %d, want %d", sig, got, want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: %s exists after the command was stopped", sig, out)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".sig-*.partial-*")); len(left) > 0 {
			t.Errorf("%v: staging left behind: %v", sig, left)
		}
	}
}
