package sim

import "github.com/evalsched/lab/results"

// The small batches' measurements: which batches count as small (their
// size the jobs submitted to them) and their makespans, finished or
// right-censored.

// smallBatches is results.SmallBatches while the run lasts: the makespans
// in pages, so that a run of a million single-job batches never copies
// them to grow a slice (fairness joins them once, at their final size).
type smallBatches struct {
	count, behindLarge, unfinished int
	makespans, behindMakespans     pages[float64]
	censored, behindCensored       pages[float64]
}

// add is results.SmallBatches.Add: the common batch (finished, not behind
// large) inline, the others in addOther.
func (s *smallBatches) add(behindLarge, finished bool, makespan float64) {
	if finished && !behindLarge {
		s.count++
		s.makespans.add(makespan)
		return
	}
	s.addOther(behindLarge, finished, makespan)
}

func (s *smallBatches) addOther(behindLarge, finished bool, makespan float64) {
	s.count++
	if behindLarge {
		s.behindLarge++
	}
	if !finished {
		s.unfinished++
		s.censored.add(makespan)
		if behindLarge {
			s.behindCensored.add(makespan)
		}
		return
	}
	s.makespans.add(makespan)
	if behindLarge {
		s.behindMakespans.add(makespan)
	}
}

// results is the measurements as results.SmallBatches, with room for
// extra more batches (the live ones, added at the end).
func (s *smallBatches) results(extra int) results.SmallBatches {
	join := func(ps *pages[float64]) []float64 {
		n := ps.len()
		if n == 0 {
			return nil // as results.SmallBatches.Add leaves it
		}
		return ps.appendTo(make([]float64, 0, n+extra))
	}
	return results.SmallBatches{Count: s.count, BehindLarge: s.behindLarge, Unfinished: s.unfinished,
		Makespans: join(&s.makespans), BehindLargeMakespans: join(&s.behindMakespans),
		Censored: join(&s.censored), BehindLargeCensored: join(&s.behindCensored)}
}

// smallMakespan is whether a batch counts among the small batches (it is
// small and arrived in the window), and its makespan if it finished, or
// the time it has been open until now (a right-censored makespan; only
// live batches are unfinished, so these cost nothing while the run lasts).
func smallMakespan(b *batchState, now Time) (ok, finished bool, makespan float64) {
	if b.submitted > SmallBatch || !b.inWindow {
		return false, false, 0
	}
	if b.done == b.arrived {
		return true, true, (b.lastFinish - b.firstArrive).Seconds()
	}
	return true, false, (now - b.firstArrive).Seconds()
}
