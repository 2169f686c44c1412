package policies

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// probe records which optional signals the State it is handed offers, and
// the free containers it sees.
type probe struct {
	quota, latency bool
	free           int
}

func (p *probe) Name() string                       { return "probe" }
func (p *probe) Trigger() Trigger                   { return Trigger{Tick: time.Second} }
func (p *probe) Enqueue(time.Time, Job)             {}
func (p *probe) Finished(time.Time, JobID, ModelID) {}
func (p *probe) Waiting() int                       { return 0 }
func (p *probe) Decide(_ time.Time, s State, _ *Plan) {
	_, p.quota = s.(QuotaState)
	_, p.latency = s.(LatencySignals)
	p.free = s.FreeContainers()
}

// States offering each combination of the optional signals.
type (
	quotaFake   struct{ *fakeState }
	latencyFake struct{ *fakeState }
	bothFake    struct{ *fakeState }
)

func (quotaFake) Quota(ModelID) QuotaReading                 { return QuotaReading{} }
func (quotaFake) Rejections(ModelID) int                     { return 0 }
func (latencyFake) CallLatency(ModelID) (float64, time.Time) { return 0, time.Time{} }
func (latencyFake) Throttled(ModelID) int64                  { return 0 }
func (bothFake) Quota(ModelID) QuotaReading                  { return QuotaReading{} }
func (bothFake) Rejections(ModelID) int                      { return 0 }
func (bothFake) CallLatency(ModelID) (float64, time.Time)    { return 0, time.Time{} }
func (bothFake) Throttled(ModelID) int64                     { return 0 }

// TestGuardOffersWhatTheCallerOffers: the policy inside a Guard sees
// exactly the optional signals the caller's State offers — none that the
// caller does not (a QuotaState of zeros would read as "no quota used"),
// and every one it does (a latency controller inside guards must still
// hear latencies) — with the guards' free containers in every shape.
func TestGuardOffersWhatTheCallerOffers(t *testing.T) {
	base := newFakeState(2, 10)
	for _, tc := range []struct {
		name           string
		state          State
		quota, latency bool
	}{
		{"plain", base, false, false},
		{"quota", quotaFake{base}, true, false},
		{"latency", latencyFake{base}, false, true},
		{"both", bothFake{base}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &probe{}
			g := NewGuard(p, GuardConfig{MaxJobs: 3}, 2)
			g.Decide(time.Unix(0, 0), tc.state, &Plan{})
			want := probe{quota: tc.quota, latency: tc.latency, free: 3}
			if diff := cmp.Diff(want, *p, cmp.AllowUnexported(probe{})); diff != "" {
				t.Errorf("what the inner policy saw (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGuardPassesTargetDepths: a Guard offers the inner policy's target
// depths when it keeps them, and none otherwise.
func TestGuardPassesTargetDepths(t *testing.T) {
	cfg := SchedulerConfig{}
	s, err := NewScheduler(cfg, modelNames(3))
	if err != nil {
		t.Fatal(err)
	}
	g := NewGuard(s, GuardConfig{MaxJobs: 5}, 3)
	if diff := cmp.Diff(s.TargetDepths(), g.TargetDepths()); diff != "" || len(g.TargetDepths()) != 3 {
		t.Errorf("guarded targets (-scheduler +guard):\n%s", diff)
	}
	fl, err := NewFixedLane(FixedLaneConfig{GlobalCap: 10}, modelNames(3))
	if err != nil {
		t.Fatal(err)
	}
	if got := NewGuard(fl, GuardConfig{MaxJobs: 5}, 3).TargetDepths(); got != nil {
		t.Errorf("a guarded fixed-lane policy offers targets %v", got)
	}
}

// rogue starts every job it is told of, whatever the State offers.
type rogue struct{ jobs []JobID }

func (r *rogue) Name() string                       { return "rogue" }
func (r *rogue) Trigger() Trigger                   { return Trigger{Tick: time.Second} }
func (r *rogue) Enqueue(_ time.Time, j Job)         { r.jobs = append(r.jobs, j.ID) }
func (r *rogue) Finished(time.Time, JobID, ModelID) {}
func (r *rogue) Waiting() int                       { return len(r.jobs) }
func (r *rogue) Decide(_ time.Time, _ State, p *Plan) {
	p.Start = append(p.Start, r.jobs...)
	r.jobs = r.jobs[:0]
}

// TestGuardRefusesAPlanPastItsCap: a policy that starts more jobs than the
// guards leave free fails (Err, naming the policy, the decision and the
// rule) and its plan starts nothing; one within the cap passes.
func TestGuardRefusesAPlanPastItsCap(t *testing.T) {
	for _, tc := range []struct {
		running, jobs int
		want          string
	}{
		{running: 0, jobs: 2},
		{running: 1, jobs: 1},
		{running: 1, jobs: 2, want: "policy rogue: decision at 2025-09-30T00:01:00Z: the plan starts 2 jobs, more than the 1 the guards leave free (guards.max_jobs 2, 1 running)"},
		{running: 0, jobs: 359, want: "the plan starts 359 jobs, more than the 2 the guards leave free (guards.max_jobs 2, 0 running)"},
	} {
		r := &rogue{}
		g := NewGuard(r, GuardConfig{MaxJobs: 2}, 1)
		s := newFakeState(1, 1000)
		s.running[0] = tc.running
		for i := range tc.jobs {
			g.Enqueue(t0, Job{ID: JobID(i)})
		}
		var plan Plan
		g.Decide(t0.Add(time.Minute), s, &plan)
		got := ""
		if err := g.Err(); err != nil {
			got = err.Error()
		}
		if got != tc.want && (tc.want == "" || !strings.Contains(got, tc.want)) {
			t.Errorf("running %d, %d started: Err %q, want %q", tc.running, tc.jobs, got, tc.want)
		}
		if tc.want != "" && len(plan.Start) != 0 {
			t.Errorf("running %d: the refused plan starts %v", tc.running, plan.Start)
		}
	}
}
