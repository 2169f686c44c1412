package sim

import (
	"strings"
	"testing"

	"github.com/evalsched/lab/scenario"
)

// TestQuotaProbeLowersPeaks: on azure-production's binding Anthropic TPM,
// the quota probe (raises slowed to ×factor per quota_dead_time once a
// window is a third full) lowers the highest running count on an Anthropic
// lane against a control whose quota_dead_time equals its dead_time
// (raises near a quota then go at most as fast as the slow start's own
// probe, ×factor per dead time). Seeds 1 and 8 are the ones whose climbs
// overshot most before the probe (274 and 549 running jobs). Peaks are
// read from the series rows, not from the controller.
func TestQuotaProbeLowersPeaks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four azure-production simulations")
	}
	sc := loadAzureProduction(t)
	v, err := sc.Variant("quota-scheduler")
	if err != nil {
		t.Fatal(err)
	}
	probe := v.Scenario
	control := *probe
	control.Policies.Scheduler.QuotaDeadTime = probe.Policies.Scheduler.WithDefaults().DeadTime
	peak := func(s *scenario.Scenario, seed uint64) int32 {
		w, err := Execute(s, RunSpec{Policy: v.Policy, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		names := s.Catalogue()
		var p int32
		for _, r := range w.Series() {
			if strings.HasPrefix(names[r.Model], "claude-") {
				p = max(p, r.Running)
			}
		}
		return p
	}
	for _, seed := range []uint64{1, 8} {
		with, without := peak(probe, seed), peak(&control, seed)
		if with >= without {
			t.Errorf("seed %d: highest Anthropic running count %d with the quota probe, %d without: want lower", seed, with, without)
		}
		t.Logf("seed %d: highest Anthropic running count %d with the quota probe, %d without", seed, with, without)
	}
}
