package sim

import (
	"fmt"
	"testing"

	"github.com/evalsched/lab/scenario"
)

// TestQuotaAwareSchedulerVsNegativeControl runs the scheduler on the
// incident's eval with a binding TPM (and no daily quota): with the old
// signal (the depth without backoff, no 429 signal) the limit climbs while
// calls sit in backoff and running jobs far outgrow what the quota admits;
// with the new signals they do not.
func TestQuotaAwareSchedulerVsNegativeControl(t *testing.T) {
	overlay := `
  quota-bound:
    policy: scheduler
    organisations:
      - {name: acme, tpm: 1000000, tpd: 0, rpd: 0}
    production: []
    policies:
      scheduler: {initial_limit: 4, step_mode: multiplicative, factor: 1.25, target_depth: 8%s}
    gateway: {depth_signal: %s}
`
	results := map[string]int32{}
	for _, tc := range []struct{ name, extra, signal string }{
		{"old", ", ignore_quota: true", "queued"},
		{"new", "", "held"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := scenario.EmbeddedYAML("incident-0214")
			if err != nil {
				t.Fatal(err)
			}
			data = append(data, fmt.Sprintf(overlay, tc.extra, tc.signal)...)
			sc, err := scenario.ParseScenario("incident.yaml", data)
			if err != nil {
				t.Fatal(err)
			}
			v, err := sc.Variant("quota-bound")
			if err != nil {
				t.Fatal(err)
			}
			w, err := Execute(v.Scenario, RunSpec{Policy: v.Policy, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			var peak int32
			for _, r := range w.Series() {
				peak = max(peak, r.Running)
			}
			results[tc.name] = peak
		})
	}
	// What the quota admits: 1M tokens/min at ~90k tokens per 43 s case is
	// about 8 cases a minute, i.e. ~6 running at once; allow 4x for calls
	// in flight and the controller's steps.
	admits := int32(1_000_000 / 90_000 * 43 / 60)
	if results["old"] < 20*admits {
		t.Errorf("negative control: old signal peaked at %d running jobs; want the runaway (>= %d)", results["old"], 20*admits)
	}
	if results["new"] > 4*max(admits, 1)+8 {
		t.Errorf("quota-aware scheduler peaked at %d running jobs; the quota admits about %d", results["new"], admits)
	}
	t.Logf("peak running jobs: old signal %d, new %d (quota admits ~%d)", results["old"], results["new"], admits)
}
