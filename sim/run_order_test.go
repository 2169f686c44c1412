package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// listSchedule runs specs of the given durations on slots through runOrder
// on a virtual clock, each run holding its size of budget (0: no budget)
// as runGate counts it: it returns the order the specs started in, when
// each started, and when the last ended.
func listSchedule(specs []RunSpec, took []time.Duration, slots int, size []float64, budget float64) (started []int, at []time.Duration, makespan time.Duration) {
	return listScheduleSkew(specs, took, slots, size, budget, 0)
}

// listScheduleSkew is listSchedule where a run picked at an instant starts
// skew after the one picked before it at that instant (as ExecuteAll's
// starts follow one another).
func listScheduleSkew(specs []RunSpec, took []time.Duration, slots int, size []float64, budget float64, skew time.Duration) (started []int, at []time.Duration, makespan time.Duration) {
	o := newRunOrder(specs)
	at = make([]time.Duration, len(specs))
	end := map[int]time.Duration{} // running spec -> its end
	var now time.Duration
	held := 0.0
	for len(started) < len(specs) || len(end) > 0 {
		for k := time.Duration(0); len(end) < slots && len(started) < len(specs); k++ {
			now += min(k, 1) * skew
			i, ok := o.pick(now, func(i int) bool {
				return len(end) == 0 || budget <= 0 || held+size[i] <= budget
			})
			if !ok {
				break
			}
			started, at[i] = append(started, i), now
			end[i] = now + took[i]
			if size != nil {
				held += size[i]
			}
		}
		first := -1 // the running spec that ends first (lowest index on ties)
		for i, t := range end {
			if first < 0 || t < end[first] || t == end[first] && i < first {
				first = i
			}
		}
		now = end[first]
		delete(end, first)
		if size != nil {
			held -= size[first]
		}
		o.end(first, now)
	}
	return started, at, now
}

// compareSpecs are a compare's specs over seeds, arm by arm within a seed
// (lab.PlanCompare's order), with each arm's time.
func compareSpecs(seeds int, classes bool, arms ...time.Duration) ([]RunSpec, []time.Duration) {
	var specs []RunSpec
	var took []time.Duration
	for k := range seeds {
		for a, d := range arms {
			s := RunSpec{Seed: uint64(k + 1)}
			if classes {
				s.Class = fmt.Sprint("arm ", a)
			}
			specs = append(specs, s)
			took = append(took, d)
		}
	}
	return specs, took
}

// TestRunOrderLongestFirst: on two slots, a compare whose second arm takes
// five times its first ends when the arms' whole time over two slots
// allows, not later as in spec order. The makespans are worked by hand
// (the slot freed first takes the next spec): five seeds of 8 s and 40 s
// in spec order run f1 f2 s2 f4 s4 on one slot (104 s) and s1 f3 s3 f5 s5
// on the other: 136 s; longest first, every 40 s run starts before the
// 8 s ones after the first: (5*40 + 5*8)/2 = 120 s.
func TestRunOrderLongestFirst(t *testing.T) {
	for _, tc := range []struct {
		seeds        int
		classes      bool
		arms         []time.Duration
		wantMakespan time.Duration
	}{
		{5, false, []time.Duration{8 * time.Second, 40 * time.Second}, 136 * time.Second},
		{5, true, []time.Duration{8 * time.Second, 40 * time.Second}, 120 * time.Second},
		// Three seeds: spec order f1 f2 s2 (56 s) | s1 f3 s3 (88 s);
		// longest first f1 s2 f2 f3 (64 s) | s1 s3 (80 s).
		{3, false, []time.Duration{8 * time.Second, 40 * time.Second}, 88 * time.Second},
		{3, true, []time.Duration{8 * time.Second, 40 * time.Second}, 80 * time.Second},
		// Two seeds (studio-week's compare --seeds 2): spec order f1 f2 s2
		// (56 s) | s1; longest first f1 s2 (48 s) | s1 f2 (48 s). At 8 s
		// the first arm's run has ended after 8 s and the second's has run
		// 8 s: the second goes first, as it has not ended.
		{2, false, []time.Duration{8 * time.Second, 40 * time.Second}, 56 * time.Second},
		{2, true, []time.Duration{8 * time.Second, 40 * time.Second}, 48 * time.Second},
		// The long arm listed first: spec order is already longest first.
		{5, true, []time.Duration{40 * time.Second, 8 * time.Second}, 120 * time.Second},
		// Arms alike: nothing to gain, nothing lost.
		{4, true, []time.Duration{10 * time.Second, 10 * time.Second}, 40 * time.Second},
	} {
		t.Run(fmt.Sprint(tc.seeds, tc.classes, tc.arms), func(t *testing.T) {
			specs, took := compareSpecs(tc.seeds, tc.classes, tc.arms...)
			if _, _, got := listSchedule(specs, took, 2, nil, 0); got != tc.wantMakespan {
				t.Errorf("makespan %v, want %v", got, tc.wantMakespan)
			}
		})
	}
}

// TestRunOrderWithoutClassesKeepsSpecOrder: specs without a class start
// in spec order whatever they take (a sweep's points finish in order).
func TestRunOrderWithoutClassesKeepsSpecOrder(t *testing.T) {
	specs := make([]RunSpec, 7)
	took := []time.Duration{1, 50, 3, 40, 2, 9, 30}
	got, _, _ := listSchedule(specs, took, 2, nil, 0)
	if diff := cmp.Diff([]int{0, 1, 2, 3, 4, 5, 6}, got); diff != "" {
		t.Errorf("start order (-want +got):\n%s", diff)
	}
}

// TestRunOrderMeasuresEveryClassFirst: each class's first run starts
// before any class's second, in spec order; then the costliest class's.
func TestRunOrderMeasuresEveryClassFirst(t *testing.T) {
	specs, took := compareSpecs(3, true, 5*time.Second, 20*time.Second, 10*time.Second)
	got, _, _ := listSchedule(specs, took, 1, nil, 0)
	// One slot: arm 0 (5 s), arm 1 (20 s), arm 2 (10 s) measured in turn,
	// then arm 1's other seeds, arm 2's, arm 0's.
	want := []int{0, 1, 2, 4, 7, 5, 8, 3, 6}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("start order (-want +got):\n%s", diff)
	}
}

// TestRunOrderPassesOverWhatDoesNotFit: when the costliest waiting run does
// not fit in the memory budget beside the runs in flight, a core takes the
// next that does instead of waiting. Two seeds, arms of 8 s and 1 GB and
// of 40 s and 3 GB, a 4 GB budget: at 8 s the second seed's 40 s run does
// not fit beside the first's, so its 8 s run starts then (not at 40 s),
// and the 40 s run when the first ends.
func TestRunOrderPassesOverWhatDoesNotFit(t *testing.T) {
	specs, took := compareSpecs(2, true, 8*time.Second, 40*time.Second)
	size := []float64{1, 3, 1, 3}
	_, at, makespan := listSchedule(specs, took, 2, size, 4)
	want := []time.Duration{0, 0, 8 * time.Second, 40 * time.Second}
	if diff := cmp.Diff(want, at); diff != "" {
		t.Errorf("start times (-want +got):\n%s", diff)
	}
	if makespan != 80*time.Second {
		t.Errorf("makespan %v, want 80s", makespan)
	}
}

// TestRunOrderManySpecs: a sweep's 100,000 runs without a class, and a
// compare of 2,000 seeds' two arms, are ordered in far less than a second
// (picking is linear in the waiting runs at worst, constant for runs
// without a class).
func TestRunOrderManySpecs(t *testing.T) {
	sweep := make([]RunSpec, 100_000)
	took := make([]time.Duration, len(sweep))
	for i := range took {
		took[i] = time.Duration(1 + i%7)
	}
	start := time.Now()
	got, _, _ := listSchedule(sweep, took, 2, nil, 0)
	for i, s := range got {
		if s != i {
			t.Fatalf("start %d is spec %d, want spec order", i, s)
		}
	}
	specs, took := compareSpecs(2000, true, 8*time.Second, 40*time.Second)
	listSchedule(specs, took, 2, nil, 0)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("ordering took %v", d)
	}
}

// TestRunOrderStartSkew: a compare's two arms start a moment apart, so when
// the short arm's first run ends, the long arm's has run a moment less,
// and has not ended: it still goes first (expectTie). Two seeds of 8 s
// and 40 s, each start 1 ms after the one before: 48 s and a few ms, as
// without the skew; in spec order 56 s and a few ms.
func TestRunOrderStartSkew(t *testing.T) {
	for _, classes := range []bool{true, false} {
		specs, took := compareSpecs(2, classes, 8*time.Second, 40*time.Second)
		_, _, got := listScheduleSkew(specs, took, 2, nil, 0, time.Millisecond)
		want := 48 * time.Second
		if !classes {
			want = 56 * time.Second
		}
		if got < want || got > want+10*time.Millisecond {
			t.Errorf("classes %v: makespan %v, want %v and a few ms", classes, got, want)
		}
	}
}
