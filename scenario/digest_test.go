package scenario

import (
	"strings"
	"testing"

	"github.com/evalsched/lab/scenario/scenariotest"
)

// TestRunDigestLeavesOutOtherPolicies: a policy's RunDigest moves with
// every key a run of it reads (its own block, the guards, the rest of the
// scenario) and not with another policy's settings; a policy not known to
// read only its own block (exec) gets Digest.
func TestRunDigestLeavesOutOtherPolicies(t *testing.T) {
	parse := func(t *testing.T, text string) *Scenario {
		t.Helper()
		sc, err := ParseScenario("d.yaml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	// scenariotest.Valid ends in its policies mapping: a block appended
	// there is a policies key.
	under := func(block string) string { return scenariotest.Valid + block }
	edit := func(old, new string) string {
		if !strings.Contains(scenariotest.Valid, old) {
			t.Fatalf("scenariotest.Valid has no %q", old)
		}
		return strings.Replace(scenariotest.Valid, old, new, 1)
	}
	base := parse(t, scenariotest.Valid)
	tests := []struct {
		name                  string
		text                  string
		fixed, sched, inspect bool // RunDigest of fixed-lane, scheduler, inspect moves
		digest                bool // Digest (and an unknown policy's RunDigest) moves
	}{
		{"the scheduler's settings", under("  scheduler: {target_depth: 40}\n"), false, true, false, true},
		{"inspect's settings", under("  inspect: {max_samples: 7}\n"), false, false, true, true},
		{"fixed-lane's settings", edit("global_cap: 50", "global_cap: 60"), true, false, false, true},
		{"the guards", under("  guards: {max_jobs: 30}\n"), true, true, true, true},
		{"the workload", edit("rate_per_hour: 10", "rate_per_hour: 11"), true, true, true, true},
		{"the layout only", edit("global_cap: 50", "global_cap:   50 # same"), false, false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := parse(t, tc.text)
			for _, c := range []struct {
				what     string
				was, now string
				want     bool
			}{
				{"RunDigest(fixed-lane)", base.RunDigest("fixed-lane"), sc.RunDigest("fixed-lane"), tc.fixed},
				{"RunDigest(scheduler)", base.RunDigest("scheduler"), sc.RunDigest("scheduler"), tc.sched},
				{"RunDigest(inspect)", base.RunDigest("inspect"), sc.RunDigest("inspect"), tc.inspect},
				{"Digest", base.Digest(), sc.Digest(), tc.digest},
				{"RunDigest(exec)", base.RunDigest("exec"), sc.RunDigest("exec"), tc.digest},
			} {
				if changed := c.was != c.now; changed != c.want {
					t.Errorf("%s changed = %v, want %v", c.what, changed, c.want)
				}
			}
		})
	}
	if base.RunDigest("exec") != base.Digest() {
		t.Error("RunDigest of a policy not known to read only its block is not Digest")
	}
}
