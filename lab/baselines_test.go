package lab

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/sim"
	"github.com/google/go-cmp/cmp"
)

// TestRunPointsSharesBaselines: a sweep's points that differ only in the
// scheduler's settings share one baseline run a seed, a point whose
// scenario differs otherwise gets its own, and a second call with the same
// store makes none. Each point's figures are those of the point run on its
// own (its baseline run on its own scenario), so a baseline's run made on
// another point's scenario is the one the point would have made.
func TestRunPointsSharesBaselines(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	// Two scheduler depths x two durations, two seeds: two baselines a seed.
	sweep := `scenario: default
policy: scheduler
baseline: true
overlay: {warmup: 5m, events: []}
seeds: 2
grid:
  policies.scheduler.target_depth: [4, 16]
  duration: [20m, 25m]
`
	if err := os.WriteFile(file, []byte(sweep), 0o644); err != nil {
		t.Fatal(err)
	}
	sw, err := LoadSweep(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Points) != 4 || len(sw.Seeds) != 2 {
		t.Fatalf("%d points, %d seeds; want 4, 2", len(sw.Points), len(sw.Seeds))
	}
	all := []int{0, 1, 2, 3}
	// run runs points idx with the store base and returns the runs it made
	// and each point's figures.
	run := func(idx []int, base *Baselines) (int, map[int][][]MetricValue) {
		t.Helper()
		made := 0
		got := map[int][][]MetricValue{}
		count := func(n int) func(int, sim.Time, sim.Time) { made = n; return nil }
		err := RunPoints(count, nil, sw.Points, idx, sw.Seeds, base, func(i int, perSeed [][]MetricValue) error {
			got[i] = perSeed
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return made, got
	}
	// Each point alone, with a store of its own: its own two arms a seed.
	want := map[int][][]MetricValue{}
	for _, i := range all {
		made, got := run([]int{i}, nil)
		if made != 2*len(sw.Seeds) {
			t.Fatalf("point %d alone made %d runs, want %d", i, made, 2*len(sw.Seeds))
		}
		want[i] = got[i]
	}
	base := NewBaselines()
	made, got := run(all, base)
	if w := 4*2 + 2*2; made != w { // four points' own runs, two baselines, on two seeds each
		t.Errorf("the sweep made %d runs, want %d", made, w)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("figures with shared baselines (-alone +shared):\n%s", diff)
	}
	if base.len() != 4 {
		t.Errorf("the store keeps %d baseline runs, want 4", base.len())
	}
	made, got = run(all, base)
	if made != 4*2 {
		t.Errorf("the second call made %d runs, want %d (no baseline)", made, 4*2)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("figures with stored baselines (-alone +stored):\n%s", diff)
	}
}

// TestBaselinesKeepLastScenarios: the store holds every seed's run of the
// last keptBaselineScenarios scenarios put, dropping the oldest scenario's
// runs whole when one more comes.
func TestBaselinesKeepLastScenarios(t *testing.T) {
	b := NewBaselines()
	digest := func(i int) string { return string(rune('a' + i)) }
	n := keptBaselineScenarios + 1
	for i := range n {
		for seed := uint64(1); seed <= 2; seed++ {
			b.put(baselineRun{digest(i), seed}, results.Run{Events: uint64(10*i) + seed})
		}
	}
	if got, want := b.len(), 2*keptBaselineScenarios; got != want {
		t.Fatalf("Len = %d, want %d", got, want)
	}
	for i := range n {
		for seed := uint64(1); seed <= 2; seed++ {
			r, ok := b.get(baselineRun{digest(i), seed})
			if want := i > 0; ok != want {
				t.Errorf("scenario %d seed %d kept = %v, want %v", i, seed, ok, want)
			} else if ok && r.Events != uint64(10*i)+seed {
				t.Errorf("scenario %d seed %d: run %d, want %d", i, seed, r.Events, uint64(10*i)+seed)
			}
		}
	}
}
