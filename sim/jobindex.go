package sim

import "github.com/evalsched/lab/policies"

// jobIndex maps a waiting job's ID to its slot in the waiting table. IDs are
// handed out in sequence, so it is a table indexed by ID in pages of
// 4,096, not a map (a hash per arrival and per start); a page is dropped
// once every ID in it has been handed out and has left, so it holds the
// span of IDs still waiting, not every ID of the run.
type jobIndex struct {
	pages []jobPage
}

// jobPage is the slots of 4,096 IDs and how many of them wait: one bounds
// check reaches both, and a page's slots are an array, so an ID's index in
// it, masked, needs none.
type jobPage struct {
	slots *[1 << jobIndexBits]int32 // slot+1 by ID; 0: not waiting; nil once dropped
	live  int32                     // IDs in it still waiting
}

const jobIndexBits = 12

// set records that job id waits in slot; IDs must come in sequence.
func (x *jobIndex) set(id policies.JobID, slot int32) {
	p := int(id >> jobIndexBits)
	for len(x.pages) <= p {
		x.pages = append(x.pages, jobPage{slots: new([1 << jobIndexBits]int32)})
	}
	pg := &x.pages[p]
	pg.slots[id&(1<<jobIndexBits-1)] = slot + 1
	pg.live++
}

// get is the waiting slot of job id, false if it is not waiting.
func (x *jobIndex) get(id policies.JobID) (int32, bool) {
	p := uint64(id >> jobIndexBits) // a negative id's is past every page
	if p >= uint64(len(x.pages)) {
		return 0, false
	}
	pg := x.pages[p].slots
	if pg == nil {
		return 0, false
	}
	s := pg[id&(1<<jobIndexBits-1)]
	return s - 1, s != 0
}

// remove forgets job id, which must be waiting; next is the next ID to be
// handed out, so a page none of whose IDs remain to come can go.
func (x *jobIndex) remove(id, next policies.JobID) {
	p := id >> jobIndexBits
	pg := &x.pages[p]
	pg.slots[id&(1<<jobIndexBits-1)] = 0
	if pg.live--; pg.live == 0 && next > (p+1)<<jobIndexBits-1 {
		pg.slots = nil
	}
}

// each calls f with every waiting job's ID and slot.
func (x *jobIndex) each(f func(id policies.JobID, slot int32)) {
	for p, page := range x.pages {
		if page.slots == nil {
			continue
		}
		for i, s := range page.slots {
			if s != 0 {
				f(policies.JobID(p<<jobIndexBits+i), s-1)
			}
		}
	}
}
