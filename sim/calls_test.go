package sim

import (
	"errors"
	"testing"

	"github.com/evalsched/lab/scenario"
	"github.com/google/go-cmp/cmp"
)

// callPathState is what a dispatch or a serve of waiting calls can change
// on one model: the engine's pending events, the lane and the deployment.
type callPathState struct {
	Pending                        int
	Queued, Backoff, Inflight      int
	Limit                          int
	PaceArmed                      bool
	Busy, Accepted, Waiting, Calls int
}

func readCallPath(w *World, m int32) callPathState {
	l, d := &w.gw.lanes[m], &w.prov.models[m]
	return callPathState{
		Pending: w.eng.Pending(), Queued: l.queue.Len(), Backoff: l.backoff, Inflight: l.inflight,
		Limit: l.limit, PaceArmed: l.paceArmed,
		Busy: d.busy, Accepted: d.inflight, Waiting: d.waiting.Len(), Calls: len(w.calls) - len(w.freeC),
	}
}

// TestEmptyQueueShortcuts: dispatch and serveWaiting skip their loops when
// the model's gateway queue, or its calls waiting for a stream, are empty.
// That is exact only if the loops change nothing then, a pacing model's
// included (paced must arm no wake-up for an empty queue): the loops are
// run on every model of worlds stopped at many points of a paced run (the
// incident's self-throttle, whose gateway holds calls) and must leave it
// as it was.
func TestEmptyQueueShortcuts(t *testing.T) {
	base, err := scenario.LoadScenario("incident-0214")
	if err != nil {
		t.Fatal(err)
	}
	v, err := base.Variant("self-throttle")
	if err != nil {
		t.Fatal(err)
	}
	paces, emptyQ, emptyW := 0, 0, 0
	for _, events := range []uint64{300, 1_000, 3_000, 10_000, 30_000, 100_000} {
		sc := *v.Scenario
		sc.RunBudget = scenario.Budget{MaxEvents: events}
		w := newWorld(t, &sc, v.Policy, Options{Seed: 1})
		var be *scenario.BudgetError
		if err := w.Run(); err != nil && !errors.As(err, &be) {
			t.Fatal(err)
		}
		for m := range w.prov.models {
			m := int32(m)
			if w.prov.models[m].paces {
				paces++
			}
			// unchanged fails if loop, run on model m, changes its call path.
			unchanged := func(what string, loop func(int32)) {
				before := readCallPath(w, m)
				loop(m)
				if diff := cmp.Diff(before, readCallPath(w, m)); diff != "" {
					t.Errorf("%d events, model %d: %s changed (-before +after):\n%s", events, m, what, diff)
				}
			}
			if w.gw.lanes[m].queue.Len() == 0 {
				emptyQ++
				unchanged("dispatch's loop on an empty queue", w.dispatchQueued)
			}
			if w.prov.models[m].waiting.Len() == 0 {
				emptyW++
				unchanged("serveWaiting's loop with none waiting", w.serveWaitingCalls)
			}
		}
	}
	if paces == 0 || emptyQ == 0 || emptyW == 0 {
		t.Fatalf("the test saw %d pacing models, %d empty queues, %d empty waits: it tests nothing", paces, emptyQ, emptyW)
	}
}
