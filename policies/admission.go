package policies

// Admission: which waiting jobs get this tick's free slots. Tiers by weight
// (pickTier), projects in turn within a tier (pickProject), oldest first
// within a project (oldestOpen). Only open models take part: those with a
// free slot and a waiting job.

// admit hands out up to containers free slots, appending the jobs to start to
// plan.Start.
func (s *Scheduler) admit(containers int, plan *Plan) {
	s.openModels()
	for ; containers > 0; containers-- {
		t := s.pickTier()
		if t == nil {
			break
		}
		p := s.pickProject(t)
		t.cursor = p.slot + 1
		ri := s.oldestOpen(p)
		id, mi := s.recs[ri].id, s.recs[ri].model
		plan.Start = append(plan.Start, id)
		t.admitted++
		s.release(ri)
		m := &s.models[mi]
		m.free--
		if m.free == 0 || m.waiting == 0 {
			s.closeModel(mi)
		}
	}
}

// openModels starts a tick's admission: a model is open while it has a free
// slot and a waiting job; each tier counts its open models. The open list
// is in model order; only the models with waiting jobs are looked at.
func (s *Scheduler) openModels() {
	for _, m := range s.openList {
		s.models[m].open = false
	}
	s.openList = s.openList[:0]
	for i := s.queued.Next(0); i >= 0; i = s.queued.Next(i + 1) {
		m := &s.models[i]
		m.free = max(m.limit-m.running, 0)
		if m.free > 0 {
			m.open = true
			m.openPos = len(s.openList)
			s.openList = append(s.openList, ModelID(i))
		}
	}
	for _, t := range s.active {
		t.openN = 0
		for _, m := range s.openList {
			if t.models[m].lanes > 0 {
				t.openN++
			}
		}
	}
}

// closeModel takes a model out of this tick's admission.
func (s *Scheduler) closeModel(mi ModelID) {
	m := &s.models[mi]
	if !m.open {
		return
	}
	m.open = false
	i, last := m.openPos, len(s.openList)-1
	moved := s.openList[last]
	s.openList[i] = moved
	s.models[moved].openPos = i
	s.openList = s.openList[:last]
	for _, t := range s.active {
		if t.models[mi].lanes > 0 {
			t.openN--
		}
	}
}

// pickTier chooses the tier of the next start by smooth weighted round robin
// over the tiers that can use a slot now: the i-th such tier by priority has
// weight share·(1-share)^i, the last one (1-share)^i. Each tier's credit
// carries across ticks, so shares hold even with one slot per tick.
func (s *Scheduler) pickTier() *tierNode {
	elig := s.eligBuf[:0]
	for _, t := range s.active {
		if t.openN > 0 {
			elig = append(elig, t)
		}
	}
	s.eligBuf = elig
	switch len(elig) {
	case 0:
		return nil
	case 1:
		return elig[0] // credit += 1, then -= 1
	}
	var best *tierNode
	last := len(elig) - 1
	for i, t := range elig {
		w := s.rest[i]
		if i < last {
			w *= s.share
		}
		t.credit += w
		if best == nil || t.credit > best.credit {
			best = t
		}
	}
	best.credit--
	for _, t := range elig {
		// Credits stay within (-1, 1) while the set of tiers is steady; the
		// clamp only bounds what a changing set can leave behind.
		t.credit = min(max(t.credit, -2), 2)
	}
	return best
}

// pickProject is the project whose turn it is in the tier: the first, from
// the cursor on round the ring, with a job on an open model. The tier must
// have one. It costs one bitset search per open model.
func (s *Scheduler) pickProject(t *tierNode) *projNode {
	c, n := t.cursor, len(t.ring)
	if c >= n {
		c = 0
	}
	best, bestDist := -1, n+1
	for _, m := range s.openList {
		tm := &t.models[m]
		if tm.lanes == 0 {
			continue
		}
		i, d := tm.projects.Next(c), 0
		if i >= 0 {
			d = i - c
		} else {
			i = tm.projects.Next(0)
			d = i + n - c
		}
		if d < bestDist {
			best, bestDist = i, d
			if d == 0 {
				break
			}
		}
	}
	if best < 0 {
		panic("scheduler: tier has no project with an open model")
	}
	return t.ring[best]
}

// oldestOpen is the oldest job of the project on an open model.
func (s *Scheduler) oldestOpen(p *projNode) int32 {
	best := int32(-1)
	for _, l := range p.lanes {
		if !s.models[l.model].open {
			continue
		}
		if ri := l.oldest(); best < 0 || s.older(ri, best) {
			best = ri
		}
	}
	if best < 0 {
		panic("scheduler: project has no job on an open model")
	}
	return best
}
