package extpolicy

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evalsched/lab/policies"
)

const python = "/usr/bin/python3"

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fake is a policy process in a few lines of Python: hello is its
// handshake reply, plan(msg, jobs) the plan it answers a decide with,
// atEOF what it does when its stdin closes.
func fake(t *testing.T, hello, plan, atEOF string) Config {
	t.Helper()
	if _, err := os.Stat(python); err != nil {
		t.Skip("no " + python)
	}
	src := `import json, sys
sys.stdin.readline()
print(json.dumps(` + hello + `), flush=True)
jobs = []
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "enqueue":
        jobs.append(msg["job"]["id"])
    elif msg["type"] == "decide":
        print(json.dumps(` + plan + `), flush=True)
` + atEOF + "\n"
	return Config{Command: []string{python, "-c", src}, Timeout: 5 * time.Second}
}

const okHello = `{"type": "hello", "protocol": 1, "name": "f", "trigger": {"tick": 10**10, "on_event": False}}`

type state struct{}

func (s state) Running(policies.ModelID) int                   { return 0 }
func (s state) GatewayDepth(policies.ModelID) (int, time.Time) { return 0, time.Time{} }
func (s state) FreeContainers() int                            { return 10000 }
func start(t *testing.T, cfg Config, stderr *bytes.Buffer) (*Policy, error) {
	t.Helper()
	opts := Options{Models: []string{"a", "b"}, Epoch: epoch}
	if stderr != nil {
		opts.Stderr = stderr
	}
	return Start(cfg, opts)
}

func TestHandshakeRefusals(t *testing.T) {
	for _, tc := range []struct{ hello, want string }{
		{`{"type": "hello", "protocol": 2, "name": "f", "trigger": {"tick": 1, "on_event": False}}`, "hello: speaks protocol 2, the lab speaks 1"},
		{`{"type": "hello", "protocol": 1, "name": "f", "trigger": {"tick": 0, "on_event": False}}`, "hello: trigger: want a positive tick"},
		{`{"type": "hello", "protocol": 1, "name": "f"}`, "hello: trigger: want"},
		{`{"type": "hello", "protocol": 1, "name": "f", "trigger": {"tick": 10**9, "on_event": False}, "targets": [1]}`, "hello: targets has 1 entries, the catalogue 2 models"},
		{`{"type": "plan", "seq": 1, "start": []}`, `hello: answered a "plan" message, want hello`},
		{`{"type": "hello", "protocol": 1, "name": "f", "trigger": {"tick": 10**9, "on_event": False}, "colour": 1}`, `unknown field "colour"`},
		{`{"type": "error", "message": "no licence"}`, "hello: reported an error: no licence"},
	} {
		p, err := start(t, fake(t, tc.hello, `{}`, ""), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.hello, err, tc.want)
		}
		if p != nil {
			t.Errorf("%s: a policy despite the error", tc.hello)
		}
	}
}

func TestPlanChecks(t *testing.T) {
	for _, tc := range []struct{ plan, want string }{
		{`{"type": "plan", "seq": msg["seq"] + 1, "start": []}`, "decide #1 at 1m0s: the plan answers decide 2, want 1"},
		{`{"type": "plan", "start": []}`, "the plan answers decide (none), want 1"},
		{`{"type": "plan", "seq": 1, "start": jobs[:1] * 2}`, "starts job 7, which is not waiting"},
		{`{"type": "plan", "seq": 1, "start": [], "limits": [1, -1]}`, "limits[1] (model 1 (b)): -1 is outside [0, 2147483647]"},
		{`{"type": "plan", "seq": 1, "start": [], "limits": [1]}`, "limits has 1 entries: model 1 is not in the catalogue of 2 models"},
		{`{"type": "error", "message": "out of ideas"}`, "reported an error: out of ideas"},
		{`{"type": "plan", "seq": 1, "start": [], "why": "x"}`, `not a protocol message: json: unknown field "why"`},
	} {
		p, err := start(t, fake(t, okHello, tc.plan, ""), nil)
		if err != nil {
			t.Fatal(err)
		}
		p.Enqueue(epoch, policies.Job{ID: 7, Model: 0, Arrival: epoch})
		var plan policies.Plan
		p.Decide(epoch.Add(time.Minute), state{}, &plan)
		if err := p.Err(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.plan, err, tc.want)
		}
		if len(plan.Start) != 0 {
			t.Errorf("%s: a failed decision started %v", tc.plan, plan.Start)
		}
		// a failed policy is inert: nothing more is sent or started
		p.Enqueue(epoch, policies.Job{ID: 8})
		p.Decide(epoch.Add(2*time.Minute), state{}, &plan)
		if len(plan.Start) != 0 {
			t.Errorf("%s: a failed policy started %v", tc.plan, plan.Start)
		}
		if err := p.Close(); err != nil {
			t.Errorf("Close after a failure: %v", err)
		}
	}
}

// TestBatched: enqueues and finishes get no answer; each decide gets one
// plan, which starts the jobs the process was told of.
func TestBatched(t *testing.T) {
	var stderr bytes.Buffer
	p, err := start(t, fake(t, okHello, `{"type": "plan", "seq": msg["seq"], "start": jobs, "limits": [1000, 1000]}`,
		`print("bye", file=sys.stderr)`), &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "f" || p.Trigger() != (policies.Trigger{Tick: 10 * time.Second}) || p.TargetDepths() != nil {
		t.Fatalf("handshake: %q %+v %v", p.Name(), p.Trigger(), p.TargetDepths())
	}
	for id := range policies.JobID(2000) {
		p.Enqueue(epoch, policies.Job{ID: id, Model: policies.ModelID(id % 2), Account: "a\"\n\x01é"})
		p.Finished(epoch, id, 0)
	}
	if p.Waiting() != 2000 {
		t.Fatalf("Waiting %d", p.Waiting())
	}
	var plan policies.Plan
	p.Decide(epoch.Add(10*time.Second), state{}, &plan)
	if p.Err() != nil || len(plan.Start) != 2000 || !slices.Equal(plan.Limits, []int{1000, 1000}) || p.Waiting() != 0 {
		t.Fatalf("err %v, %d started, limits %v, %d waiting", p.Err(), len(plan.Start), plan.Limits, p.Waiting())
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if stderr.String() != "[exec python3] bye\n" {
		t.Errorf("stderr %q", stderr.String())
	}
}

func TestCloseReportsABadExit(t *testing.T) {
	p, err := start(t, fake(t, okHello, `{}`, "sys.exit(5)"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err == nil || !strings.Contains(err.Error(), "at the end of the run: exit status 5") {
		t.Fatalf("Close: %v", err)
	}
}
