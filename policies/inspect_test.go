package policies

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

type freeState struct{ free int }

func (s freeState) Running(ModelID) int                   { return 0 }
func (s freeState) GatewayDepth(ModelID) (int, time.Time) { return 0, time.Time{} }
func (s freeState) FreeContainers() int                   { return s.free }

// TestInspectAgainstBruteForce drives the harness policy with random
// arrivals and finishes and checks every decision against the rules
// recomputed from its own bookkeeping of the world (not the policy's):
// no task over max_samples, no more than max_tasks tasks with running or
// started samples, samples of a task started in arrival order, tasks
// admitted in order of first arrival, no container over capacity, and
// nothing left waiting that the rules allow to start (work conservation).
func TestInspectAgainstBruteForce(t *testing.T) {
	for trial := range 300 {
		rng := rand.New(rand.NewPCG(uint64(trial), 7))
		cfg := InspectConfig{MaxSamples: 1 + rng.IntN(4), MaxTasks: rng.IntN(4)}
		capacity := 1 + rng.IntN(12)
		p, err := NewInspect(cfg)
		if err != nil {
			t.Fatal(err)
		}
		type job struct {
			task    int
			id      JobID
			started bool
			done    bool
		}
		var jobs []*job
		taskOrder := []int{} // tasks in order of first arrival
		running := 0
		now := time.Time{}
		var plan Plan
		for step := range 200 {
			switch {
			case rng.IntN(3) > 0 || running == 0:
				task := rng.IntN(5)
				j := &job{task: task, id: JobID(len(jobs))}
				jobs = append(jobs, j)
				if !slices.Contains(taskOrder, task) {
					taskOrder = append(taskOrder, task)
				}
				p.Enqueue(now, Job{ID: j.id, Project: fmt.Sprint("task", task)})
			default:
				var live []*job
				for _, j := range jobs {
					if j.started && !j.done {
						live = append(live, j)
					}
				}
				j := live[rng.IntN(len(live))]
				j.done = true
				running--
				p.Finished(now, j.id, 0)
			}
			plan.Reset()
			p.Decide(now, freeState{capacity - running}, &plan)
			for _, id := range plan.Start {
				j := jobs[id]
				if j.started {
					t.Fatalf("trial %d step %d: job %d started twice", trial, step, id)
				}
				for _, k := range jobs[:id] {
					if k.task == j.task && !k.started {
						t.Fatalf("trial %d step %d: job %d of task %d started before earlier job %d", trial, step, id, j.task, k.id)
					}
				}
				j.started = true
				running++
			}
			if running > capacity {
				t.Fatalf("trial %d step %d: %d running over %d containers", trial, step, running, capacity)
			}
			// The rules from the world's own bookkeeping.
			perTask := map[int]int{}
			waiting := map[int]int{}
			for _, j := range jobs {
				switch {
				case j.started && !j.done:
					perTask[j.task]++
				case !j.started:
					waiting[j.task]++
				}
			}
			active := 0
			for _, task := range taskOrder {
				if perTask[task] > cfg.MaxSamples {
					t.Fatalf("trial %d step %d: task %d runs %d over max_samples %d", trial, step, task, perTask[task], cfg.MaxSamples)
				}
				if perTask[task] > 0 {
					active++
				}
			}
			if cfg.MaxTasks > 0 && active > cfg.MaxTasks {
				t.Fatalf("trial %d step %d: %d tasks running over max_tasks %d", trial, step, active, cfg.MaxTasks)
			}
			// Work conservation: with a free container, a task already
			// running below max_samples has nothing waiting.
			if running < capacity {
				for _, task := range taskOrder {
					if perTask[task] > 0 && perTask[task] < cfg.MaxSamples && waiting[task] > 0 {
						t.Fatalf("trial %d step %d: task %d runs %d < %d with %d waiting and a free container", trial, step, task, perTask[task], cfg.MaxSamples, waiting[task])
					}
				}
				if cfg.MaxTasks == 0 || active < cfg.MaxTasks {
					for _, task := range taskOrder {
						if perTask[task] == 0 && waiting[task] > 0 {
							t.Fatalf("trial %d step %d: task %d waits with a free task slot and container", trial, step, task)
						}
					}
				}
			}
			if p.Waiting() != waiting[0]+waiting[1]+waiting[2]+waiting[3]+waiting[4] {
				t.Fatalf("trial %d step %d: Waiting %d, want %d", trial, step, p.Waiting(), waiting[0]+waiting[1]+waiting[2]+waiting[3]+waiting[4])
			}
		}
	}
}

type poolState struct {
	freeState
	limit int
}

func (s poolState) InflightLimit(ModelID) int { return s.limit }

// TestInspectFollowsThePool: with follow_pool, a task runs up to its
// model's in-flight limit now plus follow_pool (inspect_ai's
// DynamicSampleLimiter), growing and shrinking with it; without the
// capability, max_samples.
func TestInspectFollowsThePool(t *testing.T) {
	p, err := NewInspect(InspectConfig{MaxSamples: 100, FollowPool: 5})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		p.Enqueue(time.Time{}, Job{ID: JobID(i), Project: "t"})
	}
	var plan Plan
	running := 0
	for _, tc := range []struct{ limit, want int }{{20, 25}, {40, 45}, {10, 45}} {
		plan.Reset()
		p.Decide(time.Time{}, poolState{freeState{1000}, tc.limit}, &plan)
		running += len(plan.Start)
		if running != tc.want {
			t.Errorf("limit %d: %d running, want %d", tc.limit, running, tc.want)
		}
	}
	// A limit cut: running samples stay, none starts until below the bound.
	for i := range 40 {
		p.Finished(time.Time{}, JobID(i), 0)
	}
	running -= 40
	plan.Reset()
	p.Decide(time.Time{}, poolState{freeState{1000}, 10}, &plan)
	if running += len(plan.Start); running != 15 {
		t.Errorf("after 40 finished at limit 10: %d running, want 15", running)
	}
	// A state without InflightLimits: max_samples.
	plan.Reset()
	p.Decide(time.Time{}, freeState{1000}, &plan)
	if running += len(plan.Start); running != 100 {
		t.Errorf("without the pool's limit: %d running, want max_samples 100", running)
	}
}
