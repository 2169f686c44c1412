package sim

import (
	"math"
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
// Among equal expectations a class with a run under way and none ended goes
// first (its runs take longer than the time so far), then spec order.
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
	class   []string        // spec i's class ("": none)
	waiting []int           // specs not yet picked, in spec order
	began   []time.Duration // spec i's start, -1 before it started
	ended   map[string]classTime
}

// classTime is a class's ended runs: how many and their summed time.
type classTime struct {
	n   int
	sum time.Duration
}

func newRunOrder(specs []RunSpec) *runOrder {
	o := &runOrder{class: make([]string, len(specs)), began: make([]time.Duration, len(specs)), ended: map[string]classTime{}}
	for i, s := range specs {
		o.class[i] = s.Class
		o.waiting = append(o.waiting, i)
		o.began[i] = -1
	}
	return o
}

// pick removes and returns the waiting spec to start next, at now: the
// first by orderKey of those that fit (fits: in the memory budget beside
// the runs in flight); false if none fits.
func (o *runOrder) pick(now time.Duration, fits func(i int) bool) (int, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	best, bestKey := -1, orderKey{}
	for j, i := range o.waiting {
		if k := o.key(i, now); (best < 0 || k.before(bestKey)) && fits(i) {
			best, bestKey = j, k
		}
	}
	if best < 0 {
		return 0, false
	}
	i := o.waiting[best]
	o.waiting = append(o.waiting[:best], o.waiting[best+1:]...)
	return i, true
}

// orderKey is a waiting spec's claim to start next.
type orderKey struct {
	expect float64 // expected seconds (+Inf: not measured yet)
	open   bool    // its class has runs under way and none ended
}

func (a orderKey) before(b orderKey) bool {
	if a.expect != b.expect {
		return a.expect > b.expect
	}
	return a.open && !b.open
}

// key is spec i's orderKey at now.
func (o *runOrder) key(i int, now time.Duration) orderKey {
	c := o.class[i]
	if c == "" {
		return orderKey{expect: math.Inf(1)}
	}
	var running time.Duration
	started := false
	for j, b := range o.began {
		if b >= 0 && o.class[j] == c {
			started = true
			running = max(running, now-b)
		}
	}
	e := o.ended[c]
	if !started && e.n == 0 {
		return orderKey{expect: math.Inf(1)}
	}
	expect := running
	if e.n > 0 {
		expect = max(expect, e.sum/time.Duration(e.n))
	}
	return orderKey{expect: expect.Seconds(), open: e.n == 0}
}

// start records that spec i started at now.
func (o *runOrder) start(i int, now time.Duration) {
	o.mu.Lock()
	o.began[i] = now
	o.mu.Unlock()
}

// end records that spec i, started, ended at now.
func (o *runOrder) end(i int, now time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	e := o.ended[o.class[i]]
	e.n++
	e.sum += now - o.began[i]
	o.ended[o.class[i]] = e
	o.began[i] = -1
}
