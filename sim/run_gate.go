package sim

import "sync"

// runGate admits runs of ExecuteAll in the order it asks (runOrder): at most slots at a
// time, and, when budget > 0, only while the estimated bytes of the runs in
// flight plus the next one's stay within budget (scenario.Budget's
// MaxMemory, which the in-run guard compares with the process's whole live
// heap, so parallel runs must share it). A run is always admitted when
// nothing else is in flight, so one run larger than the budget on its own
// still runs as before (SetBudget refuses it first if it is too big).
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

// waitSlot waits until a run could be admitted but for its bytes: fewer
// than slots in flight (or none).
func (g *runGate) waitSlot() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.inFlight > 0 && g.inFlight >= g.slots {
		g.cond.Wait()
	}
}

// acquire waits until a run estimated at bytes fits, then counts it in.
func (g *runGate) acquire(bytes float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.inFlight > 0 && (g.inFlight >= g.slots || (g.budget > 0 && g.bytes+bytes > g.budget)) {
		g.cond.Wait()
	}
	g.inFlight++
	g.bytes += bytes
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
