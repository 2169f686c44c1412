package sim

import "github.com/evalsched/lab/policies"

// jobIndex maps a waiting job's ID to its slot in the waiting table. IDs are
// handed out in sequence, so it is a table indexed by ID in pages of
// 4,096, not a map (a hash per arrival and per start); a page is dropped
// once every ID in it has been handed out and has left, so it holds the
// span of IDs still waiting, not every ID of the run.
type jobIndex struct {
	pages [][]int32 // slot+1 by ID; 0: not waiting
	live  []int32   // per page: IDs in it still waiting
}

const jobIndexBits = 12

// set records that job id waits in slot; IDs must come in sequence.
func (x *jobIndex) set(id policies.JobID, slot int32) {
	p := int(id >> jobIndexBits)
	for len(x.pages) <= p {
		x.pages = append(x.pages, make([]int32, 1<<jobIndexBits))
		x.live = append(x.live, 0)
	}
	x.pages[p][id&(1<<jobIndexBits-1)] = slot + 1
	x.live[p]++
}

// get is the waiting slot of job id, false if it is not waiting.
func (x *jobIndex) get(id policies.JobID) (int32, bool) {
	p := id >> jobIndexBits
	if id < 0 || int(p) >= len(x.pages) || x.pages[p] == nil {
		return 0, false
	}
	s := x.pages[p][id&(1<<jobIndexBits-1)]
	return s - 1, s != 0
}

// remove forgets job id, which must be waiting; next is the next ID to be
// handed out, so a page none of whose IDs remain to come can go.
func (x *jobIndex) remove(id, next policies.JobID) {
	p := id >> jobIndexBits
	x.pages[p][id&(1<<jobIndexBits-1)] = 0
	x.live[p]--
	if x.live[p] == 0 && next > (p+1)<<jobIndexBits-1 {
		x.pages[p] = nil
	}
}

// each calls f with every waiting job's ID and slot.
func (x *jobIndex) each(f func(id policies.JobID, slot int32)) {
	for p, page := range x.pages {
		for i, s := range page {
			if s != 0 {
				f(policies.JobID(p<<jobIndexBits+i), s-1)
			}
		}
	}
}
