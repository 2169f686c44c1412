package sim

import (
	"math"
	"slices"
	"sync"
	"time"
)

// runOrder picks which of ExecuteAll's waiting runs starts when a slot
// frees: the one expected to take longest (list scheduling, longest first),
// learned from the runs so far, since nothing tells the cost of a run before
// it ran (Scenario.Estimate is one figure for every policy, while the
// week's scheduler arm costs five times its fixed-lane arm). Runs of one
// class (RunSpec.Class: one arm of a compare, over its seeds) are taken to
// cost alike: a class's expected time is the mean of its ended runs, and at
// least the time so far of its longest-running one. A class none of whose
// runs has started is taken as the longest, so every class is measured
// before the others' later runs are placed; a spec without a class is such
// a class forever, so specs without classes start in spec order, as before.
// Among equal expectations (within expectTie) a class with a run under way
// and none ended goes first (its runs take longer than the time so far),
// then spec order.
//
// A run that does not fit in the memory budget beside those in flight is
// passed over for the next that does, so a core does not wait for memory
// while a smaller run could use it.
//
// Starting the long runs first shortens the tail: a compare of five seeds
// whose scheduler arm takes 40 s and fixed-lane arm 8 s ends, on two
// slots, at 136 s in spec order and at 120 s (the runs' 240 s over two
// slots) in this one (TestRunOrderLongestFirst).
type runOrder struct {
	mu      sync.Mutex
	class   []int // spec i's class, an index into classes (-1: none)
	classes []classTimes
	waiting []int           // specs not yet picked, in spec order
	began   []time.Duration // spec i's start
}

// classTimes is what a class's runs have taken: those under way (specs,
// started at their began), and how many have ended and their summed time.
type classTimes struct {
	running []int
	ended   int
	sum     time.Duration
}

func newRunOrder(specs []RunSpec) *runOrder {
	o := &runOrder{class: make([]int, len(specs)), began: make([]time.Duration, len(specs))}
	ids := map[string]int{}
	for i, s := range specs {
		o.class[i] = -1
		if s.Class != "" {
			id, ok := ids[s.Class]
			if !ok {
				id = len(o.classes)
				ids[s.Class] = id
				o.classes = append(o.classes, classTimes{})
			}
			o.class[i] = id
		}
		o.waiting = append(o.waiting, i)
	}
	return o
}

// pick removes the waiting spec to start next, at now, and records it as
// started then: the first by orderKey of those that fit (fits: in the
// memory budget beside the runs in flight); false if none fits.
func (o *runOrder) pick(now time.Duration, fits func(i int) bool) (int, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	keys := make([]orderKey, len(o.classes))
	for c := range o.classes {
		keys[c] = o.key(c, now)
	}
	best, bestKey := -1, orderKey{}
	for j, i := range o.waiting {
		k := orderKey{expect: math.Inf(1)}
		if c := o.class[i]; c >= 0 {
			k = keys[c]
		}
		if (best < 0 || k.before(bestKey)) && fits(i) {
			best, bestKey = j, k
			if math.IsInf(k.expect, 1) {
				break // nothing later goes before it
			}
		}
	}
	if best < 0 {
		return 0, false
	}
	i := o.waiting[best]
	if best == 0 { // the usual pick, taken in O(1): a sweep's runs are all first in turn (TestRunOrderManySpecs)
		o.waiting = o.waiting[1:]
	} else {
		o.waiting = append(o.waiting[:best], o.waiting[best+1:]...)
	}
	o.began[i] = now
	if c := o.class[i]; c >= 0 {
		o.classes[c].running = append(o.classes[c].running, i)
	}
	return i, true
}

// orderKey is a waiting spec's claim to start next.
type orderKey struct {
	expect float64 // expected seconds (+Inf: not measured yet)
	open   bool    // its class has runs under way and none ended
}

// expectTie: expectations apart by less than this share of the larger are
// equal. A class's runs differ by seed more than that anyway, and a class
// whose first run started a moment after another's reads that moment
// shorter when the other ends, though it has not ended.
const expectTie = 0.05

func (a orderKey) before(b orderKey) bool {
	if a.expect != b.expect && (math.IsInf(a.expect, 1) || math.IsInf(b.expect, 1) ||
		math.Abs(a.expect-b.expect) > expectTie*max(a.expect, b.expect)) {
		return a.expect > b.expect
	}
	return a.open && !b.open
}

// key is class c's orderKey at now.
func (o *runOrder) key(c int, now time.Duration) orderKey {
	ct := &o.classes[c]
	if len(ct.running) == 0 && ct.ended == 0 {
		return orderKey{expect: math.Inf(1)}
	}
	var expect time.Duration
	for _, i := range ct.running {
		expect = max(expect, now-o.began[i])
	}
	if ct.ended > 0 {
		expect = max(expect, ct.sum/time.Duration(ct.ended))
	}
	return orderKey{expect: expect.Seconds(), open: ct.ended == 0}
}

// end records that spec i, started, ended at now.
func (o *runOrder) end(i int, now time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	c := o.class[i]
	if c < 0 {
		return
	}
	ct := &o.classes[c]
	ct.running = slices.DeleteFunc(ct.running, func(r int) bool { return r == i })
	ct.ended++
	ct.sum += now - o.began[i]
}
