package policies

import (
	"math"

	"github.com/evalsched/lab/internal/bitset"
)

// noRec ends the free list of job records.
const noRec int32 = -1

// The waiting-job index: tier → project → model. Each (tier, project, model)
// lane is a queue of job records, oldest first (heap.go); each (tier, model)
// pair keeps a bitset of the projects with jobs on the model
// (internal/bitset), so admission finds the next project in turn without scanning. Records, lanes
// and projects are recycled through free lists, so that starting jobs in
// Decide never allocates.

const maxTier = math.MaxInt8

// jobRec is one job as the index keeps it: flat, so that the heaps compare
// arrivals without chasing pointers.
type jobRec struct {
	id      JobID
	sec     int64 // arrival, Unix seconds
	nsec    int32 // and nanoseconds
	hpos    int32 // position in lane.h; next free record when not live
	model   ModelID
	tier    Tier
	live    bool
	carried [3]Tier // account, project, batch tiers as enqueued
	lane    *lane
	account string
	project string
	batch   string
}

// lane holds the waiting jobs of one project in one tier on one model,
// oldest first (arrival, then job ID): a sorted run while they join in that
// order, a binary heap otherwise (heap.go).
type lane struct {
	proj  *projNode
	model ModelID
	h     []int32 // indices into Scheduler.recs: a sorted run from head, or a heap (heap.go)
	head  int32   // where the sorted run starts (0 in a heap)
	heap  bool    // h is a heap
	ppos  int32   // index in proj.lanes
	next  *lane   // next free lane, while in the pool
}

// A lane's heap starts with room for laneMinCap jobs, and keeps up to
// laneMaxKeep of room in the pool.
const (
	laneMinCap  = 8
	laneMaxKeep = 4096
)

type projKey struct {
	tier             Tier
	account, project string
}

// projNode is a project within one tier: the unit that takes turns.
type projNode struct {
	key     projKey
	tier    *tierNode
	lanes   []*lane
	slot    int // position in tier.ring
	waiting int
	next    *projNode // next free node, while in the pool
}

// tierNode is one priority tier: its projects in turn order, and its
// admission state (cursor, credit) that carries across ticks.
type tierNode struct {
	tier     Tier
	ring     []*projNode // turn order; nil = free slot
	freeSlot []int
	cursor   int // ring position whose turn is next
	models   []tierModel
	// openN is the number of models in openList with jobs in this tier:
	// the tier can use a slot when it is positive.
	openN    int
	waiting  int
	credit   float64
	admitted int64
}

// tierModel is a tier's view of one model.
type tierModel struct {
	projects bitset.Set // ring positions of the projects with jobs on the model
	lanes    int32      // how many there are
}

// newRec takes a job record from the free list, or grows the slab.
func (s *Scheduler) newRec() int32 {
	if ri := s.freeRec; ri != noRec {
		s.freeRec = s.recs[ri].hpos
		return ri
	}
	s.recs = append(s.recs, jobRec{})
	return int32(len(s.recs) - 1)
}

// release takes a started job out of the index and frees its record.
func (s *Scheduler) release(ri int32) {
	s.unlink(ri)
	r := &s.recs[ri]
	r.live = false
	r.lane = nil
	r.account, r.project, r.batch = "", "", "" // let the strings go
	r.hpos, s.freeRec = s.freeRec, ri
}

// link files a job record under its tier, project and model.
func (s *Scheduler) link(ri int32) {
	r := &s.recs[ri]
	t := s.tiers[r.tier]
	if t == nil {
		t = &tierNode{tier: r.tier, models: make([]tierModel, len(s.models))}
		s.tiers[r.tier] = t
	}
	if t.waiting == 0 {
		s.activate(t)
	}
	key := projKey{tier: r.tier, account: r.account, project: r.project}
	p := s.projects[key]
	if p == nil {
		p = s.newProj(t, key)
		s.projects[key] = p
	}
	var l *lane
	for _, x := range p.lanes {
		if x.model == r.model {
			l = x
			break
		}
	}
	if l == nil {
		l = s.newLane(p, r.model)
	}
	r.lane = l
	s.push(l, ri)
	t.waiting++
	p.waiting++
	if s.models[r.model].waiting == 0 {
		s.queued.Add(int(r.model))
	}
	s.models[r.model].waiting++
	s.waiting++
}

// unlink removes a job record from the index, dropping any lane, project or
// tier it leaves empty.
func (s *Scheduler) unlink(ri int32) {
	r := &s.recs[ri]
	l := r.lane
	p := l.proj
	t := p.tier
	s.remove(l, ri)
	t.waiting--
	p.waiting--
	s.models[r.model].waiting--
	if s.models[r.model].waiting == 0 {
		s.queued.Remove(int(r.model))
	}
	s.waiting--
	if l.size() == 0 {
		s.dropLane(l)
	}
	if p.waiting == 0 {
		s.dropProj(p)
	}
	if t.waiting == 0 {
		s.deactivate(t)
	}
}

func (s *Scheduler) activate(t *tierNode) {
	i := len(s.active)
	s.active = append(s.active, t)
	for ; i > 0 && s.active[i-1].tier > t.tier; i-- {
		s.active[i] = s.active[i-1]
	}
	s.active[i] = t
	if cap(s.eligBuf) < len(s.active) { // so pickTier never allocates
		s.eligBuf = make([]*tierNode, 0, cap(s.active))
	}
}

func (s *Scheduler) deactivate(t *tierNode) {
	t.credit = 0 // like a DRR deficit, credit does not outlive a backlog
	for i, x := range s.active {
		if x == t {
			s.active = append(s.active[:i], s.active[i+1:]...)
			return
		}
	}
}

func (s *Scheduler) newProj(t *tierNode, key projKey) *projNode {
	p := s.projPool
	if p != nil {
		s.projPool, p.next = p.next, nil
	} else {
		p = &projNode{}
	}
	p.key, p.tier, p.waiting = key, t, 0
	if n := len(t.freeSlot); n > 0 {
		p.slot = t.freeSlot[n-1]
		t.freeSlot = t.freeSlot[:n-1]
		t.ring[p.slot] = p
	} else {
		p.slot = len(t.ring)
		t.ring = append(t.ring, p)
		if cap(t.freeSlot) < len(t.ring) { // so dropProj never allocates
			t.freeSlot = append(make([]int, 0, cap(t.ring)), t.freeSlot...)
		}
	}
	return p
}

func (s *Scheduler) dropProj(p *projNode) {
	t := p.tier
	delete(s.projects, p.key)
	t.ring[p.slot] = nil
	t.freeSlot = append(t.freeSlot, p.slot)
	p.tier, p.key = nil, projKey{}
	p.next, s.projPool = s.projPool, p
}

func (s *Scheduler) newLane(p *projNode, m ModelID) *lane {
	l := s.lanePool
	if l != nil {
		s.lanePool, l.next = l.next, nil
	} else {
		l = &lane{}
	}
	if l.h == nil {
		l.h = make([]int32, 0, laneMinCap)
	}
	l.proj, l.model, l.head, l.heap = p, m, 0, false
	l.ppos = int32(len(p.lanes))
	p.lanes = append(p.lanes, l)
	tm := &p.tier.models[m]
	tm.projects.Add(p.slot)
	tm.lanes++
	if tm.lanes == 1 && s.models[m].open {
		p.tier.openN++
	}
	return l
}

func (s *Scheduler) dropLane(l *lane) {
	p, m := l.proj, l.model
	tm := &p.tier.models[m]
	tm.projects.Remove(p.slot)
	tm.lanes--
	if tm.lanes == 0 && s.models[m].open {
		p.tier.openN--
	}
	last := p.lanes[len(p.lanes)-1]
	p.lanes[l.ppos] = last
	last.ppos = l.ppos
	p.lanes[len(p.lanes)-1] = nil
	p.lanes = p.lanes[:len(p.lanes)-1]
	l.proj = nil
	if cap(l.h) > laneMaxKeep {
		l.h = nil // do not hold a drained 50,000-job heap in the pool
	}
	l.next, s.lanePool = s.lanePool, l
}
