package policies

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ---- Tier inheritance and runtime overrides ----

// TestTierInheritance: priority passes from an account to its projects and
// batches (the source: "Priority passes from an account to its projects
// and batches"; pinning an account raises everything under it): a level
// below may raise the priority it inherits, never lower it; nothing set
// means DefaultTier.
func TestTierInheritance(t *testing.T) {
	tests := []struct {
		name               string
		account, proj, bat Tier
		want               Tier
	}{
		{"nothing set", 0, 0, 0, 3},
		{"account only", 1, 0, 0, 1},
		{"a project cannot lower its account", 1, 2, 0, 1},
		{"a batch cannot lower its account", 1, 2, 4, 1},
		{"a project raises its account's", 4, 2, 0, 2},
		{"a batch raises its project's", 0, 4, 2, 2},
		{"batch raises account", 5, 0, 1, 1},
		{"project only", 0, 2, 0, 2},
		{"batch only", 0, 0, 6, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, s := newSchedulerHarness(t, fixedLimitCfg(10), 1, 0)
			h.enqueue(1, Job{Account: "a", Project: "p", Batch: "b", AccountTier: tc.account, ProjectTier: tc.proj, BatchTier: tc.bat})
			for tier := Tier(1); tier <= 9; tier++ {
				want := 0
				if tier == tc.want {
					want = 1
				}
				if got := s.WaitingInTier(tier); got != want {
					t.Errorf("WaitingInTier(%d) = %d, want %d", tier, got, want)
				}
			}
		})
	}
}

// TestRetier: overriding a level at run time moves the waiting jobs under
// it whose priority it raises (pinning an account raises everything under
// it, projects with tiers of their own included), and only those.
func TestRetier(t *testing.T) {
	type counts = map[Tier]int
	tests := []struct {
		name string
		do   func(*Scheduler)
		want counts
	}{
		{"nothing", func(*Scheduler) {}, counts{3: 15, 2: 5}},
		// acme/p1 inherits, acme/p2 sets its project tier 2, other is another account.
		{"pin account", func(s *Scheduler) { s.SetAccountTier("acme", 1) }, counts{1: 15, 3: 5}},
		// An account at 3 does not lower acme/p2's own tier 2.
		{"account below a project's own tier", func(s *Scheduler) { s.SetAccountTier("acme", 3) }, counts{3: 15, 2: 5}},
		{"pin then unpin account", func(s *Scheduler) { s.SetAccountTier("acme", 1); s.SetAccountTier("acme", 0) }, counts{3: 15, 2: 5}},
		{"project", func(s *Scheduler) { s.SetProjectTier("acme", "p2", 4) }, counts{3: 15, 4: 5}},
		// The same project name under another account is another project.
		{"project of another account", func(s *Scheduler) { s.SetProjectTier("other", "p2", 4) }, counts{3: 10, 2: 5, 4: 5}},
		{"batch", func(s *Scheduler) { s.SetBatchTier("acme", "p1", "b1", 1) }, counts{1: 5, 3: 10, 2: 5}},
		{"a batch cannot lower a pinned account", func(s *Scheduler) {
			s.SetAccountTier("acme", 1)
			s.SetBatchTier("acme", "p1", "b1", 5)
		}, counts{1: 15, 3: 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, s := newSchedulerHarness(t, fixedLimitCfg(100), 1, 0)
			h.enqueue(5, Job{Account: "acme", Project: "p1", Batch: "b1"})
			h.enqueue(5, Job{Account: "acme", Project: "p1", Batch: "b2"})
			h.enqueue(5, Job{Account: "acme", Project: "p2", Batch: "b1", ProjectTier: 2})
			h.enqueue(5, Job{Account: "other", Project: "p2", Batch: "b1"})
			tc.do(s)
			got := counts{}
			for tier := Tier(1); tier <= 9; tier++ {
				if n := s.WaitingInTier(tier); n > 0 {
					got[tier] = n
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("waiting per tier (-want +got):\n%s", diff)
			}
			// Everything still starts, exactly once.
			h.st.fixedFree = 100
			if n := len(h.step()); n != 20 {
				t.Errorf("started %d of 20", n)
			}
		})
	}
}

// TestRetierApplies: a pinned account's waiting jobs take the top tier's
// share at once, and jobs it enqueues later inherit the pin.
func TestRetierApplies(t *testing.T) {
	h, s := newSchedulerHarness(t, fixedLimitCfg(100), 1, 0)
	h.st.fixedFree = 5
	h.enqueue(1000, Job{Account: "bulk", Project: "x", AccountTier: 2})
	h.enqueue(1000, Job{Account: "acme", Project: "y"})
	s.SetAccountTier("acme", 1)
	h.enqueue(1000, Job{Account: "acme", Project: "z"})
	got := map[string]int{}
	for range 100 {
		for _, id := range h.step() {
			got[h.jobs[id].Account]++
		}
		h.finishAll()
	}
	if diff := cmp.Diff(map[string]int{"acme": 400, "bulk": 100}, got); diff != "" {
		t.Errorf("starts per account (-want +got):\n%s", diff)
	}
}
