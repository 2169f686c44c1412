package policies

import (
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
