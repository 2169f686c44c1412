package policies

// Runtime tier overrides: an operator pins an account, project or batch to a
// tier, for waiting jobs as well as future ones. A job keeps the tiers it was
// enqueued with (jobRec.carried); the overrides sit on top, and inheritance
// is resolved again whenever one changes.

// SetAccountTier overrides, for waiting and future jobs of the account, the
// tier the jobs carried at the account level; t = 0 removes the override.
// Everything under the account takes at least its priority (a project or
// batch that sets a higher one keeps it; Job.EffectiveTier). It costs one pass over
// the waiting jobs: an operator action, not a per-tick one.
func (s *Scheduler) SetAccountTier(account string, t Tier) {
	setOverride(s.acctOv, account, t)
	s.retier(func(r *jobRec) bool { return r.account == account })
}

// SetProjectTier is SetAccountTier for one project of an account.
func (s *Scheduler) SetProjectTier(account, project string, t Tier) {
	setOverride(s.projOv, [2]string{account, project}, t)
	s.retier(func(r *jobRec) bool { return r.account == account && r.project == project })
}

// SetBatchTier is SetAccountTier for one batch of a project.
func (s *Scheduler) SetBatchTier(account, project, batch string, t Tier) {
	setOverride(s.batchOv, [3]string{account, project, batch}, t)
	s.retier(func(r *jobRec) bool {
		return r.account == account && r.project == project && r.batch == batch
	})
}

func setOverride[K comparable](m map[K]Tier, k K, t Tier) {
	if t <= 0 {
		delete(m, k)
		return
	}
	m[k] = t
}

func (s *Scheduler) retier(match func(*jobRec) bool) {
	for i := range s.recs {
		r := &s.recs[i]
		if !r.live || !match(r) {
			continue
		}
		if t := s.tierOf(r); t != r.tier {
			s.unlink(int32(i))
			r.tier = t
			s.link(int32(i))
		}
	}
}

// tierOf resolves a job's effective tier: the carried tiers with any
// runtime overrides applied, then inheritance as in Job.EffectiveTier.
func (s *Scheduler) tierOf(r *jobRec) Tier {
	levels := r.carried
	if len(s.acctOv) > 0 {
		if t, ok := s.acctOv[r.account]; ok {
			levels[0] = t
		}
	}
	if len(s.projOv) > 0 {
		if t, ok := s.projOv[[2]string{r.account, r.project}]; ok {
			levels[1] = t
		}
	}
	if len(s.batchOv) > 0 {
		if t, ok := s.batchOv[[3]string{r.account, r.project, r.batch}]; ok {
			levels[2] = t
		}
	}
	return effectiveTier(levels)
}
