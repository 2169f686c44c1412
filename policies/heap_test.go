package policies

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLaneQueueAgainstSorted: a lane's queue (a sorted run while jobs join
// in order, a heap otherwise) gives the oldest job of a brute-force list
// kept in order after every push, start (the oldest leaves) and re-tier (any
// job leaves), with every record's position true, over runs where jobs join
// in order, mostly in order, or at random.
func TestLaneQueueAgainstSorted(t *testing.T) {
	for _, disorder := range []int{0, 50, 2} { // one push in disorder is out of order (0: none)
		rng := rand.New(rand.NewPCG(uint64(disorder), 44))
		s := &Scheduler{freeRec: noRec}
		l := &lane{h: make([]int32, 0, laneMinCap)}
		var ref []int32 // live records, oldest first
		byAge := func(a, b int32) int {
			if s.older(a, b) {
				return -1
			}
			return 1
		}
		clock := int64(0)
		for step := range 20000 {
			switch op := rng.IntN(10); {
			case op < 5 || len(ref) == 0: // a job joins
				ri := s.newRec()
				clock += int64(rng.IntN(3))
				at := clock
				if disorder > 0 && rng.IntN(disorder) == 0 {
					at -= int64(rng.IntN(20))
				}
				s.recs[ri] = jobRec{id: JobID(step), sec: at, nsec: int32(rng.IntN(2)), live: true, lane: l}
				s.push(l, ri)
				ref = append(ref, ri)
				slices.SortFunc(ref, byAge)
			case op < 9: // the oldest starts
				s.remove(l, ref[0])
				s.recs[ref[0]].hpos, s.freeRec = s.freeRec, ref[0]
				ref = ref[1:]
			default: // a job is re-tiered
				k := rng.IntN(len(ref))
				s.remove(l, ref[k])
				s.recs[ref[k]].hpos, s.freeRec = s.freeRec, ref[k]
				ref = slices.Delete(ref, k, k+1)
			}
			if l.size() != len(ref) {
				t.Fatalf("disorder %d, step %d: %d jobs in the lane, want %d", disorder, step, l.size(), len(ref))
			}
			if len(ref) > 0 && l.oldest() != ref[0] {
				t.Fatalf("disorder %d, step %d: oldest %d, want %d", disorder, step, l.oldest(), ref[0])
			}
			for i := int(l.head); i < len(l.h); i++ {
				if got := s.recs[l.h[i]].hpos; got != int32(i) {
					t.Fatalf("disorder %d, step %d: record %d at %d says %d", disorder, step, l.h[i], i, got)
				}
			}
			if !l.heap && !slices.IsSortedFunc(l.h[l.head:], byAge) {
				t.Fatalf("disorder %d, step %d: a run out of order: %v", disorder, step, l.h[l.head:])
			}
		}
	}
}
