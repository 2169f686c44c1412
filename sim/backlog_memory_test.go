package sim

import (
	"runtime"
	"testing"
	"time"

	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/workloads"
)

// waitingJobBudget is what a job waiting for a container may cost in live
// heap, all structures together, per policy: the world's compact record
// (waitingJob, 72 bytes), its entry in the ID index, the policy's own queue
// entry, and the tables' slack (a ring or slice that doubles holds up to
// twice what it needs). Fixed-lane queues job IDs (8 bytes); the
// scheduler's index keeps a record per job with the account, project and
// batch names its tier overrides match on. A backlogged baseline holds
// millions of waiting jobs over a week, so this is what bounds its memory;
// before waitingJob, a waiting job kept a whole jobState with its
// workloads.Job (about 300 bytes under fixed-lane, 430 under the scheduler).
var waitingJobBudget = map[string]float64{"fixed-lane": 160, "scheduler": 320}

// batchBudget is what a live batch adds when every waiting job is its own
// batch (replayed request traces): its batchState (48 bytes, kept at the
// world's batch key) and its name (a few bytes of text, shared with the
// job's record), with the tables' slack.
const batchBudget = 128

// TestWaitingJobsAreCompact: with the containers nearly all gone, jobs pile
// up waiting; the live heap the run holds at its end, measured with the
// runtime's own accounting (not from the tables' sizes), divided by the
// jobs still waiting, stays within the policy's waitingJobBudget.
func TestWaitingJobsAreCompact(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap of a run with ~100k waiting jobs")
	}
	for _, c := range []struct {
		name, policy string
		singles      bool // every job its own batch
	}{
		{"fixed-lane", "fixed-lane", false},
		{"scheduler", "scheduler", false},
		{"fixed-lane/single-job-batches", "fixed-lane", true},
		{"scheduler/single-job-batches", "scheduler", true},
	} {
		policy := c.policy
		t.Run(c.name, func(t *testing.T) {
			sc := smallScenario(t, func(sc *scenario.Scenario) {
				sc.Duration = 2 * time.Hour
				sc.Events = nil
				sc.Containers.Capacity = 4
				sc.Workload.Batches.RatePerHour *= 8
				if c.singles {
					sc.Workload.Batches.RatePerHour = 60_000
					sc.Workload.Batches.Size = workloads.Dist{Kind: "uniform", Min: 1, Max: 1}
					sc.Workload.Batches.Bursts = nil
					sc.Workload.Background.RatePerHour = 0
					sc.Workload.Background.Bursts = nil
				}
			})
			before := heapAfterGC()
			w := runStreamed(t, sc, policy)
			after := heapAfterGC()
			waiting := len(w.Census().JobsWaiting)
			runtime.KeepAlive(w)
			if waiting < 50_000 {
				t.Fatalf("only %d jobs waiting: the test needs a large backlog", waiting)
			}
			per := float64(after-before) / float64(waiting)
			t.Logf("%d jobs waiting, %.0f bytes of live heap each", waiting, per)
			budget := waitingJobBudget[policy]
			if c.singles {
				budget += batchBudget
			}
			if per > budget {
				t.Errorf("%.0f bytes of live heap per waiting job, want at most %.0f", per, budget)
			}
		})
	}
}

// heapAfterGC is the heap in use after a full collection.
func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
