package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const python = "/usr/bin/python3"

// reference is the Python reference client of the policy protocol.
var reference, _ = filepath.Abs("../examples/policy-exec/reference_policy.py")

func needPython(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(python); err != nil {
		t.Skip("no " + python)
	}
}

// withExecBlock is testdata/small.yaml with a policies.exec block.
func withExecBlock(t *testing.T, block string) string {
	t.Helper()
	base, err := os.ReadFile("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(base), "\npolicies:\n", "\npolicies:\n  exec: "+block+"\n", 1)
	p := filepath.Join(t.TempDir(), "small-exec.yaml")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// sameSummary runs the in-process policy and the exec one on a scenario
// and checks their summary.json byte for byte, but for the invocation's
// policy (the flag as given).
func sameSummary(t *testing.T, scenarioFile, policy, execPolicy string) {
	t.Helper()
	in, ex := t.TempDir(), t.TempDir()
	if _, stderr, code := runSim(t, "run", "--scenario", scenarioFile, "--policy", policy, "--out", in); code != 0 {
		t.Fatalf("in-process %s: exit %d: %s", policy, code, stderr)
	}
	if _, stderr, code := runSim(t, "run", "--scenario", scenarioFile, "--policy", execPolicy, "--out", ex); code != 0 {
		t.Fatalf("%s: exit %d: %s", execPolicy, code, stderr)
	}
	a, _ := os.ReadFile(filepath.Join(in, "summary.json"))
	b, _ := os.ReadFile(filepath.Join(ex, "summary.json"))
	quoted := func(s string) []byte { q, _ := json.Marshal(s); return append([]byte(`"policy": `), q...) }
	b = bytes.Replace(b, quoted(execPolicy), quoted(policy), 1)
	// The row files name the run as summary.json does (the name the policy
	// gives itself), so they are byte-identical, and the folder reads back.
	for _, name := range []string{"series.csv", "batches.csv"} {
		x, _ := os.ReadFile(filepath.Join(in, name))
		y, _ := os.ReadFile(filepath.Join(ex, name))
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Fatalf("%s: %s differs from %s's", execPolicy, name, policy)
		}
	}
	if _, stderr, code := runSim(t, "report", "--in", ex); code != 0 {
		t.Fatalf("%s: its folder does not read back: exit %d: %s", execPolicy, code, stderr)
	}
	if len(a) == 0 || !bytes.Equal(a, b) {
		i := 0
		for i < len(a) && i < len(b) && a[i] == b[i] {
			i++
		}
		lo := max(0, i-200)
		t.Fatalf("%s: summary.json differs from %s's at byte %d:\n%s\n---\n%s", execPolicy, policy, i,
			a[lo:min(len(a), i+200)], b[lo:min(len(b), i+200)])
	}
}

// TestExecReferenceSameSummary: the Python reference client gives the
// in-process policies' summary.json, byte for byte, on the small scenario
// (which has quotas), on the default scenario cut to 1h30m and on
// azure-production (quotas shared with production traffic) cut likewise.
func TestExecReferenceSameSummary(t *testing.T) {
	needPython(t)
	for _, policy := range []string{"fixed-lane", "scheduler"} {
		sameSummary(t, "testdata/small.yaml", policy, "exec:"+python+" "+reference+" "+policy)
	}
	if testing.Short() {
		return
	}
	def, err := os.ReadFile("../scenario/scenarios/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.NewReplacer("\nduration: 4h\n", "\nduration: 1h30m\n", "at: 2h, model", "at: 50m, model",
		"at: 2h40m, model", "at: 1h10m, model").Replace(string(def))
	p := filepath.Join(t.TempDir(), "default-short.yaml")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	sameSummary(t, p, "scheduler", "exec:"+python+" "+reference+" scheduler")

	// azure-production cut to 1h30m, with the held per-job quota rate: the
	// quota rules (429s, headroom, the probe cap near a full window) at work.
	az, err := os.ReadFile("../scenario/scenarios/azure-production.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s = strings.NewReplacer("\nduration: 4h\n", "\nduration: 1h30m\n", "at: 2h, model", "at: 50m, model",
		"at: 2h40m, model", "at: 1h10m, model", "at: 2h30m, batches", "at: 1h, batches",
		"\n  scheduler:\n    tick: 10s\n", "\n  scheduler:\n    job_rate_hold: 5m\n    tick: 10s\n").Replace(string(az))
	if !strings.Contains(s, "job_rate_hold: 5m\n    tick") {
		t.Fatal("test bug: azure-production's scheduler block moved")
	}
	p = filepath.Join(t.TempDir(), "azure-short.yaml")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	sameSummary(t, p, "scheduler", "exec:"+python+" "+reference+" scheduler")
}

// TestExecFailures: every way the process can fail stops the run with an
// error naming the message and the decision time, and writes nothing.
func TestExecFailures(t *testing.T) {
	needPython(t)
	scen := withExecBlock(t, "{timeout: 1s}")
	fake := func(mode string) string { return "exec:" + python + " testdata/policies/fake_policy.py " + mode }
	for _, tc := range []struct {
		name, policy string
		want         []string
	}{
		{"not starting", "exec:testdata/policies/no-such-policy", []string{"did not start", "no-such-policy"}},
		{"no handshake", fake("nohello"), []string{"hello: exited (exit status 4) before answering"}},
		{"exiting", fake("exit"), []string{"decide #3 at 20s: exited (exit status 3) before answering"}},
		{"late", fake("late"), []string{"decide #3 at 20s: no answer within 1s (the timeout): killed"}},
		{"malformed", fake("malformed"), []string{"decide #3 at 20s: answered", "not a protocol message"}},
		{"not waiting", fake("notwaiting"), []string{"decide #3 at 20s: starts job 987654321, which is not waiting"}},
		{"unknown model", fake("badlimit"), []string{"decide #3 at 20s: limits has 8 entries: model 7 is not in the catalogue of 7 models"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			_, stderr, code := runSim(t, "run", "--scenario", scen, "--policy", tc.policy, "--out", out)
			if code == 0 {
				t.Fatalf("exit 0, want a failure; stderr:\n%s", stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s was written (%v)", out, err)
			}
		})
	}
}

// TestExecStderrPassedThrough: the process's stderr reaches the lab's,
// line by line, after a prefix.
func TestExecStderrPassedThrough(t *testing.T) {
	needPython(t)
	_, stderr, code := runSim(t, "run", "--scenario", "testdata/small.yaml", "--policy",
		"exec:"+python+" testdata/policies/fake_policy.py stderr", "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"[exec python3] fake policy: starting\n", "[exec python3] fake policy: second line\n"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
}

// TestExecScenarioBlock: the command may come from policies.exec, whose
// keys are checked when the scenario is read.
func TestExecScenarioBlock(t *testing.T) {
	needPython(t)
	scen := withExecBlock(t, `{command: [`+python+`, `+reference+`], config: {policy: fixed-lane}}`)
	sameSummary(t, scen, "fixed-lane", "exec")
	bad := withExecBlock(t, "{comand: [x]}")
	_, stderr, code := runSim(t, "run", "--scenario", bad, "--policy", "exec", "--out", t.TempDir())
	if code == 0 || !strings.Contains(stderr, "small-exec.yaml:34: policies.exec.comand: unknown field") {
		t.Fatalf("exit %d, want a FILE:LINE: path error for the misspelt key:\n%s", code, stderr)
	}
}
