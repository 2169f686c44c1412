package extpolicy

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalsched/lab/policies"
)

// script is a policy process whose whole source is src (Python), with a
// short timeout so a fault is found quickly.
func script(t *testing.T, src string) Config {
	t.Helper()
	if _, err := os.Stat(python); err != nil {
		t.Skip("no " + python)
	}
	return Config{Command: []string{python, "-c", src}, Timeout: 2 * time.Second}
}

// within fails the test when fn has not returned after d: the fault it
// provokes must not hang the lab.
func within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { fn(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s: still running after %v", what, d)
	}
}

// alive reports whether the process pid written to file exists.
func alive(t *testing.T, file string) (int, bool) {
	t.Helper()
	var b []byte
	for range 50 { // the process writes it as it starts
		b, _ = os.ReadFile(file)
		if strings.HasSuffix(string(b), "\n") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("%s: no pid: %q", file, b)
	}
	for range 50 { // a killed process may take a moment to go
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return pid, false
		}
		// a zombie child of init counts as gone
		if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(st), ") Z ") {
			return pid, false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return pid, true
}

const helloLine = `print(json.dumps({"type": "hello", "protocol": 1, "name": "f", "trigger": {"tick": 10**10, "on_event": False}}), flush=True)`

// TestProcessFaultsDoNotHang: a process that closes its stdout but lingers,
// or leaves a child holding its pipes, costs the lab at most a few
// timeouts, and nothing of it outlives the policy.
func TestProcessFaultsDoNotHang(t *testing.T) {
	for _, tc := range []struct {
		name, onDecide, atEOF string
		want                  string // in Err after the decision ("" = none)
		close                 string // in Close's error ("" = none)
	}{
		{name: "closes stdout and lingers", onDecide: `os.close(1); time.sleep(3600)`, want: "decide #1 at 1m0s: closed its stdout and did not exit within 2s: killed"},
		{name: "a child holds the pipes, the policy exits", onDecide: `child(); os._exit(0)`, want: "decide #1 at 1m0s: no answer within 2s"},
		{name: "a child holds the pipes, the policy answers", onDecide: `child(); plan()`, atEOF: "sys.exit(0)",
			close: "at the end of the run (its stdin closed): exited, but left a process holding its stdout open past the timeout: killed"},
		{name: "ignores its stdin closing", onDecide: `plan()`, atEOF: "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(3600)",
			close: "at the end of the run (its stdin closed): did not exit within 2s: killed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			self, kid := filepath.Join(dir, "self.pid"), filepath.Join(dir, "child.pid")
			src := `import json, os, signal, subprocess, sys, time
open(` + strconv.Quote(self) + `, "w").write("%d\n" % os.getpid())
def child():
    subprocess.Popen(["/bin/sh", "-c", "echo $$ > ` + kid + `; exec sleep 3600"])
    time.sleep(0.2)
def plan():
    print(json.dumps({"type": "plan", "seq": msg["seq"], "start": []}), flush=True)
sys.stdin.readline()
` + helloLine + `
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "decide":
        ` + tc.onDecide + `
` + tc.atEOF + "\n"
			p, err := start(t, script(t, src), nil)
			if err != nil {
				t.Fatal(err)
			}
			within(t, 10*time.Second, "decide and close", func() {
				var plan policies.Plan
				p.Decide(epoch.Add(time.Minute), state{}, &plan)
				if err := p.Err(); (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Err %v, want %q", err, tc.want)
				}
				err := p.Close()
				if (err == nil) != (tc.close == "") || err != nil && !strings.Contains(err.Error(), tc.close) {
					t.Errorf("Close: %v, want %q", err, tc.close)
				}
			})
			if pid, ok := alive(t, self); ok {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("the policy process %d outlived Close", pid)
			}
			if strings.Contains(tc.onDecide, "child") {
				if pid, ok := alive(t, kid); ok {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("the policy's child %d outlived Close", pid)
				}
			}
		})
	}
}

// TestKillAll: a policy that ignores SIGTERM, and its child, are ended by
// KillAll (what sim does when it is stopped by a signal).
func TestKillAll(t *testing.T) {
	dir := t.TempDir()
	self, kid := filepath.Join(dir, "self.pid"), filepath.Join(dir, "child.pid")
	src := `import json, os, signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
open(` + strconv.Quote(self) + `, "w").write("%d\n" % os.getpid())
subprocess.Popen(["/bin/sh", "-c", "echo $$ > ` + kid + `; exec sleep 3600"])
time.sleep(0.3)
sys.stdin.readline()
` + helloLine + `
time.sleep(3600)
`
	cfg := script(t, src)
	cfg.Timeout = 5 * time.Second
	if _, err := start(t, cfg, nil); err != nil {
		t.Fatal(err)
	}
	KillAll()
	for _, f := range []string{self, kid} {
		if pid, ok := alive(t, f); ok {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("%s: process %d outlived KillAll", filepath.Base(f), pid)
		}
	}
}

// TestRefusedValues: what the process announces is checked before it is
// used, and a refusal names the message and the field.
func TestRefusedValues(t *testing.T) {
	for _, tc := range []struct{ hello, plan, want string }{
		{hello: `{"type": "hello", "protocol": 1, "name": "f", "trigger": {"tick": 1, "on_event": False}}`,
			want: "hello: trigger.tick: 1ns is shorter than the minimum 100ms"},
		{hello: `{"type": "hello", "protocol": 1, "name": "f", "trigger": {"tick": 10**10, "on_event": False}, "targets": [1, 1e308]}`,
			want: "hello: targets[1] (model 1 (b)): 1e+308 is outside [0, 2147483647]"},
		{hello: `{"type": "hello", "protocol": 1, "name": "f", "trigger": {"tick": 10**10, "on_event": False}, "targets": [None, 1]}`,
			want: "hello: targets[0] (model 0 (a)): null, want a number"},
		{hello: `{"type": "hello", "protocol": 1, "name": "f", "trigger": {"tick": 10**10, "on_event": False}, "targets": [-1, 1]}`,
			want: "hello: targets[0] (model 0 (a)): -1 is outside [0, 2147483647]"},
		{plan: `{"type": "plan", "seq": 1, "start": [], "limits": [2**31, 1]}`,
			want: "decide #1 at 1m0s: limits[0] (model 0 (a)): 2147483648 is outside [0, 2147483647]"},
		{plan: `{"type": "plan", "seq": 1, "start": [], "limits": [None, 1]}`,
			want: "decide #1 at 1m0s: limits[0] (model 0 (a)): null, want an integer"},
		{plan: `{"type": "plan", "seq": 1, "start": [], "limits": [1.5, 1]}`,
			want: "decide #1 at 1m0s: limits[0] (model 0 (a)): 1.5, want an integer"},
		{plan: `{"type": "plan", "seq": 1, "start": [None]}`,
			want: "decide #1 at 1m0s: start[0]: null, want a job id"},
		// the plan breaks the free containers it was offered (a guard's
		// worker cap shows as fewer free containers)
		{plan: `{"type": "plan", "seq": 1, "start": jobs}`,
			want: "decide #1 at 1m0s: the plan starts 3 jobs, more than the 2 free containers (free)"},
		// the plan breaks its own limits: model 0 runs 1 (state) + 2 > 2
		{plan: `{"type": "plan", "seq": 1, "start": jobs[:2], "limits": [2, 5]}`,
			want: "decide #1 at 1m0s: the plan starts 2 jobs on model 0 (a), which runs 1, past its own limit 2 (limits[0])"},
	} {
		hello := tc.hello
		if hello == "" {
			hello = okHello
		}
		plan := tc.plan
		if plan == "" {
			plan = `{"type": "plan", "seq": msg["seq"], "start": []}`
		}
		p, err := start(t, fake(t, hello, plan, ""), nil)
		if tc.hello != "" {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: error %v, want %q", tc.hello, err, tc.want)
			}
			if p != nil {
				p.Close()
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for id := range policies.JobID(3) {
			p.Enqueue(epoch, policies.Job{ID: 7 + id, Model: 0, Arrival: epoch})
		}
		var got policies.Plan
		p.Decide(epoch.Add(time.Minute), tight{}, &got)
		if err := p.Err(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.plan, err, tc.want)
		}
		if len(got.Start) != 0 || got.Limits != nil {
			t.Errorf("%s: a refused plan gave %+v", tc.plan, got)
		}
		p.Close()
	}
}

// tight is a state with 2 free containers and one job running on model 0.
type tight struct{}

func (tight) Running(m policies.ModelID) int {
	if m == 0 {
		return 1
	}
	return 0
}
func (tight) GatewayDepth(policies.ModelID) (int, time.Time) { return 0, time.Time{} }
func (tight) FreeContainers() int                            { return 2 }
