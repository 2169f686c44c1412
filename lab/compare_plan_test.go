package lab

import (
	"fmt"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/sim"
	"github.com/google/go-cmp/cmp"
)

// TestPlanCompare: every arm on every seed the shard owns (seed k by k mod
// N), seeds counted from the first, only the first seed's runs written.
func TestPlanCompare(t *testing.T) {
	arms := []sim.RunSpec{{Policy: "fixed-lane"}, {Policy: "scheduler"}}
	for _, tc := range []struct {
		seeds   int
		sh      Shard
		owned   []int
		written int
	}{
		{1, Whole, []int{0}, 2},
		{5, Whole, []int{0, 1, 2, 3, 4}, 2},
		{5, Shard{I: 0, N: 2}, []int{0, 2, 4}, 2},
		{5, Shard{I: 1, N: 2}, []int{1, 3}, 0},
		{3, Shard{I: 2, N: 3}, []int{2}, 0},
	} {
		p, err := PlanCompare(arms, 100, tc.seeds, tc.sh, nil)
		if err != nil {
			t.Fatal(err)
		}
		var wantSeeds, gotSeeds []uint64
		var wantPolicies, gotPolicies []string
		for _, k := range tc.owned {
			for _, a := range arms {
				wantSeeds = append(wantSeeds, 100+uint64(k))
				wantPolicies = append(wantPolicies, a.Policy)
			}
		}
		for _, s := range p.Specs {
			gotSeeds = append(gotSeeds, s.Seed)
			gotPolicies = append(gotPolicies, s.Policy)
		}
		if diff := cmp.Diff(wantSeeds, gotSeeds); diff != "" {
			t.Errorf("%d seeds, shard %v: seeds (-want +got):\n%s", tc.seeds, tc.sh, diff)
		}
		if diff := cmp.Diff(wantPolicies, gotPolicies); diff != "" {
			t.Errorf("%d seeds, shard %v: policies (-want +got):\n%s", tc.seeds, tc.sh, diff)
		}
		if diff := cmp.Diff(tc.owned, p.Owned); diff != "" || p.Written != tc.written {
			t.Errorf("%d seeds, shard %v: owned (-want +got):\n%s written %d, want %d", tc.seeds, tc.sh, diff, p.Written, tc.written)
		}
		runs := make([]results.Run, len(p.Specs))
		for i, s := range p.Specs {
			runs[i] = results.Run{Policy: fmt.Sprint(s.Policy, "@", s.Seed)}
		}
		for j, rs := range p.BySeed(runs) {
			for a, r := range rs {
				if want := fmt.Sprint(arms[a].Policy, "@", 100+uint64(tc.owned[j])); r.Policy != want {
					t.Errorf("BySeed[%d][%d] = %s, want %s", j, a, r.Policy, want)
				}
			}
		}
	}
	if _, err := PlanCompare(arms, 1, 2, Shard{I: 0, N: 3}, nil); err == nil {
		t.Error("three shards of two seeds were accepted")
	}
}
