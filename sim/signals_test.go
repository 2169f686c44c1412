package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
)

// rereader wraps a policy: at every decision it reads every signal the
// State offers for every model twice, fails the test if the two readings
// differ, and then lets the policy decide.
type rereader struct {
	policies.Policy
	t      *testing.T
	models int
	reads  int
}

// TargetDepths passes the wrapped policy's targets on.
func (r *rereader) TargetDepths() []float64 {
	if t, ok := r.Policy.(policies.DepthTargets); ok {
		return t.TargetDepths()
	}
	return nil
}

func (r *rereader) Decide(now time.Time, s policies.State, plan *policies.Plan) {
	read := func() string {
		var b bytes.Buffer
		for m := range r.models {
			id := policies.ModelID(m)
			d, at := s.GatewayDepth(id)
			fmt.Fprintln(&b, s.Running(id), d, at)
			if ls, ok := s.(policies.LatencySignals); ok {
				lat, at := ls.CallLatency(id)
				fmt.Fprintln(&b, lat, at, ls.Throttled(id))
			}
			if qs, ok := s.(policies.QuotaState); ok {
				fmt.Fprintf(&b, "%+v %d\n", qs.Quota(id), qs.Rejections(id))
			}
		}
		fmt.Fprintln(&b, s.FreeContainers())
		return b.String()
	}
	if first, second := read(), read(); first != second {
		r.t.Fatalf("at %v a second reading differs from the first:\n%s\nthen\n%s", now, first, second)
	}
	r.reads++
	r.Policy.Decide(now, s, plan)
}

// TestReadingSignalsChangesNothing: every signal a policy reads reads the
// same however often it is read (invariant: reads have no side effects),
// and a run whose policy reads every signal twice more at every decision
// writes the same summary as one that does not. The scenario has quotas
// (QuotaState), a latency-reading controller and a stale-metrics spell.
func TestReadingSignalsChangesNothing(t *testing.T) {
	sc, err := scenario.LoadScenario("embedded:controllers")
	if err != nil {
		t.Fatal(err)
	}
	v, err := sc.Variant("gradient")
	if err != nil {
		t.Fatal(err)
	}
	sc = v.Scenario
	sc.Duration = 150 * time.Minute // through the stale spell at 2h20-2h30
	if len(sc.Gateway.Stale) == 0 {
		t.Fatal("the scenario has no stale spell: the test checks less than it says")
	}
	summary := func(wrap bool) []byte {
		pol, err := scenario.NewPolicy(v.Policy, sc)
		if err != nil {
			t.Fatal(err)
		}
		rr := &rereader{Policy: pol, t: t, models: len(sc.Catalogue())}
		if wrap {
			pol = rr
		}
		w, err := NewWorld(sc, Options{Seed: 2, Policy: pol})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Run(); err != nil {
			t.Fatal(err)
		}
		if wrap && rr.reads == 0 {
			t.Fatal("the policy never decided")
		}
		run := results.Summarize(w.Measured())
		b, err := json.Marshal(run)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if plain, reread := summary(false), summary(true); !bytes.Equal(plain, reread) {
		t.Errorf("reading the signals twice more at every decision changed the run's summary")
	}
}

// TestGuardedSchedulerReportsTargets: a scheduler wearing guards reports
// the same target depths as one without (the depth-error figures read
// them).
func TestGuardedSchedulerReportsTargets(t *testing.T) {
	sc, err := scenario.LoadScenario("embedded:light-load")
	if err != nil {
		t.Fatal(err)
	}
	sc.Duration, sc.Warmup = 10*time.Minute, time.Minute
	plain := runWorld(t, sc, "scheduler", Options{Seed: 1}, nil).Measured().Targets
	sc.Policies.Guards = policies.GuardConfig{MaxJobs: 1 << 20}
	guarded := runWorld(t, sc, "scheduler", Options{Seed: 1}, nil).Measured().Targets
	if len(plain) != len(sc.Catalogue()) {
		t.Fatalf("the plain scheduler reports %d targets for %d models", len(plain), len(sc.Catalogue()))
	}
	if fmt.Sprint(plain) != fmt.Sprint(guarded) {
		t.Errorf("guarded targets %v, want %v", guarded, plain)
	}
}

// TestClosedRejectedMatchesClosed: closedRejected, the 429 count Rejections
// reads, is the closed window's, whichever decision the lane's windows
// were last written in.
func TestClosedRejectedMatchesClosed(t *testing.T) {
	for _, tc := range []struct {
		name           string
		at, decisions  uint64
		open, prevRejs int
	}{
		{"written this decision", 5, 5, 3, 7},
		{"written the decision before", 4, 5, 3, 7},
		{"written long ago", 2, 5, 3, 7},
		{"never written", 0, 0, 0, 0},
		{"first decision", 0, 1, 2, 0},
	} {
		g := &Gateway{lanes: make([]gatewayLane, 2), decisions: tc.decisions}
		g.lanes[1].sig = signalLane{at: tc.at, open: signalWindow{tries: 9, rejected: tc.open}}
		g.lanes[1].prev = signalWindow{tries: 8, rejected: tc.prevRejs}
		if got, want := g.closedRejected(1), g.closed(1).rejected; got != want {
			t.Errorf("%s: closedRejected = %d, closed().rejected = %d", tc.name, got, want)
		}
	}
}
