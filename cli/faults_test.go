package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// simIn runs sim in dir with a time bound: a fault that hangs fails the
// test instead of hanging it.
func simIn(t *testing.T, dir string, bound time.Duration, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	self, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Env = append(os.Environ(), "SIM_TEST_AS_MAIN=1")
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("sim %s: still running after %v", strings.Join(args, " "), bound)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// fault is one broken input: the command, in a folder prepared by setup
// (files relative to it), and what sim must answer.
type fault struct {
	name  string
	setup func(t *testing.T, dir string)
	args  []string
	code  int
	want  string   // in stderr
	kept  []string // files that must be unchanged (as setup left them)
	gone  []string // paths that must not exist afterwards
}

func runFaults(t *testing.T, cases []fault) {
	t.Helper()
	cwd, _ := os.Getwd()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			before := map[string][]byte{}
			for _, k := range tc.kept {
				b, err := os.ReadFile(filepath.Join(dir, k))
				if err != nil {
					t.Fatal(err)
				}
				before[k] = b
			}
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.ReplaceAll(a, "$CLI", cwd)
			}
			stdout, stderr, code := simIn(t, dir, 60*time.Second, args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want %d; stderr:\n%s\nwant %q", code, tc.code, clipOut(stderr), tc.want)
			}
			if n := strings.Count(stdout, "skipped:"); n > 1 {
				t.Errorf("%d skipped lines, want one refusal", n)
			}
			for k, b := range before {
				if now, err := os.ReadFile(filepath.Join(dir, k)); err != nil || !bytes.Equal(now, b) {
					t.Errorf("%s changed (%v)", k, err)
				}
			}
			for _, g := range tc.gone {
				if _, err := os.Lstat(filepath.Join(dir, g)); err == nil {
					t.Errorf("%s was written", g)
				}
			}
		})
	}
}

func clipOut(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

func writeIn(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyIn(t *testing.T, dir, name, from string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeIn(t, dir, name, string(b))
}

// replayLog is a shipped Inspect log (one task, 100 samples).
const replayLog = "../predict/testdata/realruns/2025-09-15T15-07-21-04-00_popularity_TrR56PVX4fHPUViCDMPg8g.eval"

const tracelabSample = "$CLI/../workloads/agentlog/testdata/tracelab-round-trace.jsonl"

// TestOutputsNeverReplaceInputs: an output naming (or holding) an input
// is refused before anything is read, and the input is left as it was.
func TestOutputsNeverReplaceInputs(t *testing.T) {
	cwd, _ := os.Getwd()
	withLog := func(t *testing.T, dir string) {
		copyIn(t, dir, "log.jsonl", filepath.Join(cwd, "../workloads/agentlog/testdata/tracelab-round-trace.jsonl"))
		copyIn(t, dir, "small.yaml", filepath.Join(cwd, "testdata/small.yaml"))
		writeIn(t, dir, "jobs.jsonl", "{}\n")
		writeIn(t, dir, "out/jobs.jsonl", "{}\n")
		writeIn(t, dir, "spans.json", "{}\n")
		copyIn(t, dir, "run.eval", filepath.Join(cwd, replayLog))
		copyIn(t, dir, "logs/run.eval", filepath.Join(cwd, replayLog))
		if err := os.Symlink("spans.json", filepath.Join(dir, "link.json")); err != nil {
			t.Fatal(err)
		}
	}
	runFaults(t, []fault{
		{name: "import --out the log", setup: withLog, args: []string{"trace", "import", "--from", "tracelab", "--out", "log.jsonl", "log.jsonl"},
			code: exitUsage, want: "--out log.jsonl is the argument log.jsonl: sim does not write over its inputs", kept: []string{"log.jsonl"}},
		{name: "import --out the log through a symlink", setup: withLog, args: []string{"trace", "import", "--from", "tracelab", "--out", "link.json", "spans.json"},
			code: exitUsage, want: "--out link.json is the argument spans.json", kept: []string{"spans.json"}},
		{name: "fit --out the trace", setup: withLog, args: []string{"trace", "fit", "--out", "jobs.jsonl", "jobs.jsonl"},
			code: exitUsage, want: "--out jobs.jsonl is the argument jobs.jsonl", kept: []string{"jobs.jsonl"}},
		{name: "--otlp the scenario", setup: withLog, args: []string{"run", "--scenario", "small.yaml", "--out", "o", "--otlp", "small.yaml"},
			code: exitUsage, want: "--otlp small.yaml is --scenario small.yaml", kept: []string{"small.yaml"}, gone: []string{"o"}},
		{name: "--otlp the trace", setup: withLog, args: []string{"run", "--scenario", "small.yaml", "--trace", "jobs.jsonl", "--out", "o", "--otlp", "jobs.jsonl"},
			code: exitUsage, want: "--otlp jobs.jsonl is --trace jobs.jsonl", kept: []string{"jobs.jsonl"}},
		{name: "--otlp a symlink", setup: withLog, args: []string{"run", "--scenario", "small.yaml", "--out", "o", "--otlp", "link.json"},
			code: exitUsage, want: "--otlp link.json is a symbolic link", kept: []string{"spans.json"}, gone: []string{"o"}},
		{name: "--otlp inside --out", setup: withLog, args: []string{"run", "--scenario", "small.yaml", "--out", "o", "--otlp", "o/spans.json"},
			code: exitUsage, want: "--otlp o/spans.json is inside --out o", gone: []string{"o"}},
		{name: "--out holding the trace", setup: withLog, args: []string{"run", "--scenario", "small.yaml", "--trace", "out/jobs.jsonl", "--out", "out"},
			code: exitUsage, want: "--out out holds --trace out/jobs.jsonl", kept: []string{"out/jobs.jsonl"}},
		{name: "replay-check --json the log", setup: withLog, args: []string{"trace", "replay-check", "--json", "run.eval", "run.eval"},
			code: exitUsage, want: "--json run.eval is the argument run.eval: sim does not write over its inputs", kept: []string{"run.eval"}},
		{name: "replay-check --json a log of a directory argument", setup: withLog, args: []string{"trace", "replay-check", "--json", "logs/run.eval", "logs"},
			code: exitUsage, want: "--json logs/run.eval is a log of the argument logs, logs/run.eval: sim does not write over its inputs", kept: []string{"logs/run.eval"}},
		{name: "replay-check --json the --fit-from log", setup: withLog, args: []string{"trace", "replay-check", "--json", "run.eval", "--fit-from", "run.eval", "logs"},
			code: exitUsage, want: "--json run.eval is --fit-from run.eval: sim does not write over its inputs", kept: []string{"run.eval"}},
		{name: "replay-check --json a log of a --fit-from directory", setup: withLog, args: []string{"trace", "replay-check", "--json", "logs/run.eval", "--fit-from", "logs", "run.eval"},
			code: exitUsage, want: "--json logs/run.eval is a log of --fit-from logs, logs/run.eval", kept: []string{"logs/run.eval"}},
		{name: "import --out a log of a directory argument", setup: withLog, args: []string{"trace", "import", "--from", "inspect", "--out", "logs/run.eval", "logs"},
			code: exitUsage, want: "--out logs/run.eval is a log of the argument logs, logs/run.eval", kept: []string{"logs/run.eval"}},
		{name: "import --out -", setup: withLog, args: []string{"trace", "import", "--from", "tracelab", "--out", "-", "log.jsonl"},
			code: exitUsage, want: "--out -: sim import writes a file, not standard output", gone: []string{"-"}},
		{name: "fit --out -", setup: withLog, args: []string{"trace", "fit", "--out", "-", "jobs.jsonl"},
			code: exitUsage, want: "--out -: sim fit writes a file", gone: []string{"-"}},
		{name: "--otlp -", setup: withLog, args: []string{"run", "--scenario", "small.yaml", "--out", "o", "--otlp", "-"},
			code: exitUsage, want: "--otlp -: stdout carries the command's tables", gone: []string{"o", "-"}},
	})
}

// TestFitFiguresCheckedFirst: trace fit with a --figures it cannot write
// fails with --out unwritten.
func TestFitFiguresCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "oxdna.jsonl")
	if _, stderr, code := runSim(t, "trace", "import", "--from", "inspect", "--scenario", traceScenario,
		"--map", "anthropic/claude-opus-4-1-20250805=hot-a", "--out", trace, "../workloads/agentlog/testdata/metr-oxdna-small.eval"); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	blocker := filepath.Join(dir, "figs")
	writeIn(t, dir, "figs", "a file, not a folder")
	out := filepath.Join(dir, "fitted.yaml")
	_, stderr, code := runSim(t, "trace", "fit", "--scenario", traceScenario, "--figures", blocker, "--out", out, trace)
	if code != exitError || !strings.Contains(stderr, "--figures") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("--out written before --figures failed")
	}
}

// TestEndlessAndBinaryInputs: /dev/zero as a log or a --map file, a
// binary log, UTF-16 and a --map with a repeated key are refused once,
// with the file and line, in bounded time and memory; nothing written.
func TestEndlessAndBinaryInputs(t *testing.T) {
	utf16 := func(s string) string {
		b := []byte{0xff, 0xfe}
		for _, c := range []byte(s) {
			b = append(b, c, 0)
		}
		return string(b)
	}
	setup := func(t *testing.T, dir string) {
		writeIn(t, dir, "bin.jsonl", strings.Repeat("\x00\x01garbage\xff\n", 100000))
		writeIn(t, dir, "dup.yaml", "claude-opus-4-8: hot-a\nclaude-opus-4-8: hot-b\n")
		writeIn(t, dir, "u16.yaml", utf16("claude-opus-4-8: hot-a\n"))
	}
	imp := func(extra ...string) []string {
		return append([]string{"trace", "import", "--from", "tracelab", "--scenario", "$CLI/testdata/small.yaml", "--out", "o.jsonl"}, extra...)
	}
	runFaults(t, []fault{
		{name: "/dev/zero as a TraceLab trace", setup: setup, args: imp("/dev/zero"),
			code: exitError, want: "sim: /dev/zero:1: binary data (a NUL byte at offset 0): not a text file", gone: []string{"o.jsonl"}},
		{name: "a binary log", setup: setup, args: imp("bin.jsonl"),
			code: exitError, want: "sim: bin.jsonl:1: binary data (a NUL byte at offset 0)", gone: []string{"o.jsonl"}},
		{name: "/dev/zero as a --map file", setup: setup, args: imp("--map", "/dev/zero", tracelabSample),
			code: exitError, want: "sim: /dev/zero:1: binary data", gone: []string{"o.jsonl"}},
		{name: "a --map with a repeated key", setup: setup, args: imp("--map", "dup.yaml", tracelabSample),
			code: exitError, want: "sim: dup.yaml:2: claude-opus-4-8: repeated (first at line 1)", gone: []string{"o.jsonl"}},
		{name: "a --map in UTF-16", setup: setup, args: imp("--map", "u16.yaml", tracelabSample),
			code: exitError, want: "sim: u16.yaml:1: UTF-16: convert to UTF-8", gone: []string{"o.jsonl"}},
	})
}

// TestStudyCheckEndless: study --check against /dev/zero reads a bounded
// part of it and reports it differs.
func TestStudyCheckEndless(t *testing.T) {
	done := make(chan string, 1)
	go func() { done <- checkStudy("/dev/zero", "# a study\n") }()
	select {
	case msg := <-done:
		if !strings.Contains(msg, "/dev/zero differs: longer than what the study writes") {
			t.Errorf("checkStudy: %q", clipOut(msg))
		}
	case <-time.After(20 * time.Second):
		t.Fatal("checkStudy(/dev/zero) still reading after 20s")
	}
}

// rogueScenario is the small scenario with a worker cap of 2 jobs.
func rogueScenario(t *testing.T, dir string) {
	base, err := os.ReadFile("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(base), "\npolicies:\n", "\npolicies:\n  guards: {max_jobs: 2}\n", 1)
	writeIn(t, dir, "capped.yaml", s)
	writeIn(t, dir, "rogue.py", `import json, sys
hello = json.loads(sys.stdin.readline())
n = len(hello["models"])
print(json.dumps({"type": "hello", "protocol": 1, "name": "rogue", "trigger": {"tick": 10**10, "on_event": False}}), flush=True)
jobs = []
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "enqueue":
        jobs.append(msg["job"]["id"])
    elif msg["type"] == "decide":
        # ignores free, announces a limit of 1 and starts everything
        print(json.dumps({"type": "plan", "seq": msg["seq"], "start": jobs, "limits": [1] * n}), flush=True)
        jobs = []
`)
}

// TestExecFaults: an exec policy ignoring the guards' free slots and its
// own limits, asking for a 1 ns tick, lingering after closing its stdout
// or announcing an infinite target fails the run, in bounded time, naming
// the policy, the message and the field or rule; nothing is written.
func TestExecFaults(t *testing.T) {
	needPython(t)
	policy := func(name, hello, onDecide string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			base, err := os.ReadFile("testdata/small.yaml")
			if err != nil {
				t.Fatal(err)
			}
			// 3 s: short for the lingering policy, long enough for
			// Python to start and say hello on a loaded machine (1 s was
			// not, with other builds beside the test).
			writeIn(t, dir, "short.yaml", strings.Replace(string(base), "\npolicies:\n", "\npolicies:\n  exec: {timeout: 3s}\n", 1))
			writeIn(t, dir, name, `import json, os, sys, time
sys.stdin.readline()
print(`+hello+`, flush=True)
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "decide":
        `+onDecide+`
`)
		}
	}
	// hello is a Python expression giving the handshake's line.
	const hello = `json.dumps({"type": "hello", "protocol": 1, "name": "p", "trigger": {"tick": 10**10, "on_event": False}})`
	exec := func(script string) []string {
		return []string{"run", "--scenario", "short.yaml", "--policy", "exec:" + python + " " + script, "--out", "o"}
	}
	runFaults(t, []fault{
		{name: "past max_jobs and its own limit", setup: rogueScenario,
			args: []string{"run", "--scenario", "capped.yaml", "--policy", "exec:" + python + " rogue.py", "--out", "o"},
			code: exitError, want: "exec policy " + python + " rogue.py: decide #", gone: []string{"o"}},
		{name: "a 1 ns tick", setup: policy("tick.py", `json.dumps({"type": "hello", "protocol": 1, "name": "p", "trigger": {"tick": 1, "on_event": False}})`, "pass"),
			args: exec("tick.py"), code: exitError, want: "tick.py: hello: trigger.tick: 1ns is shorter than the minimum 100ms", gone: []string{"o"}},
		{name: "closes stdout and lingers", setup: policy("linger.py", hello, "os.close(1); time.sleep(3600)"),
			args: exec("linger.py"), code: exitError, want: "linger.py: decide #1 at 0s: closed its stdout and did not exit within", gone: []string{"o"}},
		{name: "an infinite target", setup: policy("inf.py", `'{"type": "hello", "protocol": 1, "name": "p", "trigger": {"tick": 10000000000, "on_event": false}, "targets": [' + ", ".join(["1e999"] * 7) + ']}'`, "pass"),
			args: exec("inf.py"), code: exitError, want: "inf.py: hello: targets[0] (model 0 (hot-a)): 1e999 is outside [0, 2147483647]", gone: []string{"o"}},
		// Outputs name runs by the policy's own name: a compare whose two
		// runs share one wrote a folder sim report then refused.
		{name: "an exec policy named as the built-in beside it", setup: policy("named.py", `json.dumps({"type": "hello", "protocol": 1, "name": "fixed-lane", "trigger": {"tick": 10**10, "on_event": False}})`, `print(json.dumps({"type": "plan", "seq": msg["seq"]}), flush=True)`),
			args: []string{"compare", "--scenario", "short.yaml", "--policy", "fixed-lane", "--policy", "exec:" + python + " named.py", "--out", "o"},
			code: exitError, want: "both runs are named \"fixed-lane\"", gone: []string{"o"}},
		{name: "a policy given twice", setup: policy("unused.py", hello, "pass"),
			args: []string{"compare", "--scenario", "short.yaml", "--policy", "scheduler", "--policy", "scheduler", "--out", "o"},
			code: exitUsage, want: "--policy: \"scheduler\" given twice", gone: []string{"o"}},
		{name: "an unknown policy in compare", setup: policy("unused.py", hello, "pass"),
			args: []string{"compare", "--scenario", "short.yaml", "--policy", "bogus", "--policy", "scheduler", "--out", "o"},
			code: exitUsage, want: "--policy: unknown \"bogus\"", gone: []string{"o"}},
	})
}

// TestExecPolicyEndsWithSim: a policy ignoring SIGTERM (and its child)
// does not outlive sim stopped by SIGTERM.
func TestExecPolicyEndsWithSim(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	writeIn(t, dir, "stubborn.py", `import json, os, signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
open("policy.pid", "w").write("%d\n" % os.getpid())
subprocess.Popen(["/bin/sh", "-c", "echo $$ > child.pid; exec sleep 3600"])
sys.stdin.readline()
print(json.dumps({"type": "hello", "protocol": 1, "name": "stubborn", "trigger": {"tick": 10**10, "on_event": False}}), flush=True)
for line in sys.stdin:
    if json.loads(line)["type"] == "decide":
        time.sleep(3600)
`)
	self, _ := filepath.Abs(os.Args[0])
	small, _ := filepath.Abs("testdata/small.yaml")
	cmd := exec.Command(self, "run", "--scenario", small, "--policy", "exec:"+python+" stubborn.py", "--out", "o")
	cmd.Env = append(os.Environ(), "SIM_TEST_AS_MAIN=1")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pids := map[string]int{}
	for deadline := time.Now().Add(20 * time.Second); len(pids) < 2 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for _, f := range []string{"policy.pid", "child.pid"} {
			if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil && strings.HasSuffix(string(b), "\n") {
				pids[f], _ = strconv.Atoi(strings.TrimSpace(string(b)))
			}
		}
	}
	if len(pids) < 2 {
		cmd.Process.Kill()
		t.Fatalf("the policy did not start: %v", pids)
	}
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	time.Sleep(300 * time.Millisecond)
	for f, pid := range pids {
		if err := syscall.Kill(pid, 0); err == nil {
			st, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
			if !strings.Contains(string(st), ") Z ") {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("%s: process %d outlived sim", f, pid)
			}
		}
	}
}

// TestMergeRefusesShardsOfDifferentCompares: shards of one scenario and
// seeds but other policies, or another job source, are not one compare.
func TestMergeRefusesShardsOfDifferentCompares(t *testing.T) {
	dir := t.TempDir()
	small, _ := filepath.Abs("testdata/small.yaml")
	trace := filepath.Join(dir, "jobs.jsonl")
	if _, stderr, code := runSim(t, "trace", "gen", "--scenario", small, "--out", trace); code != 0 {
		t.Fatalf("trace gen: exit %d: %s", code, stderr)
	}
	shard := func(name string, extra ...string) string {
		out := filepath.Join(dir, name)
		args := append([]string{"compare", "--scenario", small, "--seeds", "2", "--out", out}, extra...)
		if _, stderr, code := runSim(t, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		return filepath.Join(out, "shard-"+extra[1][:1]) // a shard writes DIR/shard-I
	}
	s0 := shard("s0", "--shard", "0/2")
	for _, tc := range []struct {
		name  string
		extra []string
		want  string
	}{
		{"other policies", []string{"--shard", "1/2", "--policy", "scheduler", "--policy", "fixed-lane"}, "policies fixed-lane, scheduler, and policies scheduler, fixed-lane"},
		{"another job source", []string{"--shard", "1/2", "--trace", trace}, "jobs from the generator, and --trace " + trace},
	} {
		s1 := shard(tc.name, tc.extra...)
		merged := filepath.Join(dir, "merged-"+tc.name)
		_, stderr, code := runSim(t, "merge", "--out", merged, s0, s1)
		if code != exitError || !strings.Contains(stderr, "hold different compares") || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d: %s\nwant %q", tc.name, code, stderr, tc.want)
		}
		if _, err := os.Stat(merged); err == nil {
			t.Errorf("%s: merged anyway", tc.name)
		}
	}
}
