package sim

import "sync"

// runGate admits runs of ExecuteAll, the one runOrder picks among those
// that fit: at most slots at a time, and, when budget > 0, only while the
// estimated bytes of the runs in flight plus the next one's stay within
// budget (scenario.Budget's MaxMemory, which the in-run guard compares with
// the process's whole live heap, so parallel runs must share it). A run is
// always admitted when nothing else is in flight, so one run larger than
// the budget on its own still runs as before (SetBudget refuses it first if
// it is too big).
type runGate struct {
	mu       sync.Mutex
	cond     *sync.Cond
	slots    int
	budget   float64
	inFlight int
	bytes    float64
}

func newRunGate(slots int, budget float64) *runGate {
	g := &runGate{slots: max(1, slots), budget: budget}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// admit waits until a slot is free and pick, given which bytes would fit
// in the budget beside the runs in flight, names a run that fits; it counts
// that run in and returns pick's index. A run always fits when nothing is in
// flight. pick runs under the gate's lock.
func (g *runGate) admit(pick func(fits func(bytes float64) bool) (i int, bytes float64, ok bool)) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	fits := func(bytes float64) bool {
		return g.inFlight == 0 || g.budget <= 0 || g.bytes+bytes <= g.budget
	}
	for {
		if g.inFlight < g.slots { // slots >= 1: a run is always admitted with none in flight
			if i, bytes, ok := pick(fits); ok {
				g.inFlight++
				g.bytes += bytes
				return i
			}
		}
		g.cond.Wait()
	}
}

// release counts a run of bytes out.
func (g *runGate) release(bytes float64) {
	g.mu.Lock()
	g.inFlight--
	g.bytes -= bytes
	if g.inFlight == 0 {
		g.bytes = 0 // no drift from the float sums
	}
	g.mu.Unlock()
	g.cond.Broadcast()
}
