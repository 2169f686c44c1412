package sim

import (
	"slices"

	"github.com/evalsched/lab/internal/bitset"
	"github.com/evalsched/lab/results"
)

// Fairness on each lane (model), where admission competes: round robin
// happens inside a model's limit, so projects waiting for different models
// do not compete for the same slots; and within a tier, since tiers share
// by weight. Per lane and tier: the projects with jobs of that tier waiting
// on it, their admissions and tokens answered per fairness window (Jain's
// index over those backlogged through the window), and each project's time
// to its equal share after it starts waiting behind others. Per lane: the
// tiers with jobs waiting (the tier rule: the share of the slots left to a
// tier that it took).

// FairShareBand is results.FairShareBand: admissions ≥ (1 − band) × equal
// share count as having reached it.
const FairShareBand = results.FairShareBand

// reachedShare is whether got admissions reach (1 − band) of an equal
// share owed, to a millionth of a job (owed is a sum of fractions).
func reachedShare(got int64, owed float64) bool {
	return float64(got) >= (1-FairShareBand)*owed-1e-6
}

// laneProject is one project's jobs on one lane.
type laneProject struct {
	waiting  int32
	window   int32 // the fairness window admitted and tokens count in
	admitted int64
	tokens   int64 // summed exactly, as laneMeter.tokens
	// The open time-to-share episode: since epStart (-1: none), the lane's
	// owed sum was epOwed at its start and the project got epGot jobs.
	epStart Time
	epOwed  float64
	epGot   int64
	local   int32 // its index in its group (the group's bitsets)
	project int32 // the world's project key
	group   int32 // its group's index in fairness.groups
	moved   bool  // in fairness.laneMoved
	busy    bool  // in its group's busy set (as of the last sample)
}

// noteLaneMoved lists lane project i (lp) whose jobs waiting went to or
// from none (once until the next sample).
func (f *fairness) noteLaneMoved(lp *laneProject, i int32) {
	if !lp.moved {
		lp.moved = true
		f.laneMoved = append(f.laneMoved, i)
	}
}

// syncBusy brings the busy sets up to date with the jobs waiting: each
// group's (its projects with jobs waiting on the lane) and the projects'
// (those with jobs waiting on any lane: a project counts the lane
// projects of its own in their groups' busy sets).
func (f *fairness) syncBusy() {
	for _, i := range f.laneMoved {
		lp := &f.laneProjects[i]
		lp.moved = false
		busy := lp.waiting > 0
		if busy == lp.busy {
			continue
		}
		lp.busy = busy
		g := &f.groups[lp.group]
		ps := &f.projectState[lp.project]
		if busy {
			g.busy.Add(int(lp.local))
			if ps.lanes++; ps.lanes == 1 {
				f.busy.Add(int(lp.project))
			}
		} else {
			g.busy.Remove(int(lp.local))
			if ps.lanes--; ps.lanes == 0 {
				f.busy.Remove(int(lp.project))
			}
		}
	}
	f.laneMoved = f.laneMoved[:0]
}

// tierGroup is one tier's projects on one lane: those that take turns.
type tierGroup struct {
	projects []int32 // by the group's own project index: the project's index in fairness.laneProjects
	// busy: projects with jobs waiting; candidates: those with jobs
	// waiting at every sample of the window so far.
	busy, candidates bitset.Set
	// backlogged are its projects with jobs waiting: none, and no job of
	// its tier waits on the lane.
	backlogged int
	window     int32 // the window admitted counts in
	admitted   int64
	// owed is Σ 1/n over the group's admissions, n the projects with jobs
	// waiting just before each: a project waiting throughout is owed the
	// difference of two readings, its equal share of what was admitted.
	owed  float64
	model int32
	tier  int8
	// multi: its lane has groups of two tiers or more, so the lane's set
	// of tiers waiting is kept (with one tier the tier rule never counts).
	multi bool
}

// laneFair is one lane's fairness bookkeeping.
type laneFair struct {
	groups []int32 // by tier (uint8): the group's index in fairness.groups, -1 none
	// The tiers with jobs waiting in priority order (tier 1 first), and
	// the time that set last changed; kept once the lane has groups of two
	// tiers (tierGroup.multi).
	tiersUp   []int8
	tierSince Time
	ngroups   int  // groups made (from the second, tierGroup.multi)
	active    bool // in fairness.activeLanes
}

// group is the index in f.groups of model m's group of tier t, added if new.
func (f *fairness) group(m int32, t uint8) int32 {
	l := &f.lanes[m]
	for int(t) >= len(l.groups) {
		l.groups = append(l.groups, -1)
	}
	if gi := l.groups[t]; gi >= 0 {
		return gi
	}
	gi := int32(len(f.groups))
	l.groups[t] = gi
	f.groups = append(f.groups, tierGroup{model: m, tier: int8(t), multi: l.ngroups > 0})
	if l.ngroups++; l.ngroups == 2 {
		f.multiTier(l)
	}
	return gi
}

// multiTier starts keeping a lane's set of tiers waiting, now that it has
// a second group: the first group's tier, if its jobs wait.
func (f *fairness) multiTier(l *laneFair) {
	for _, gi := range l.groups {
		if gi < 0 {
			continue
		}
		g := &f.groups[gi]
		g.multi = true
		if g.backlogged > 0 {
			l.tiersUp = append(l.tiersUp[:0], g.tier)
		}
	}
}

// tierRule counts the tier rule's measurements of one tier over the
// measurement window, summed over lanes.
type tierRule struct {
	offered, taken             int64 // slots left to the tier while a lower tier waited; of which it took
	offeredHigher, takenHigher int64 // the same, while a higher tier also waited
	admittedHigher             int64 // admissions while a higher tier waited on the lane
	higherSeconds              float64
}

// laneKey is the key of project p in model m's group of tier t.
func laneKey(p, m int32, t uint8) uint64 {
	return uint64(uint32(p))<<32 | uint64(uint32(m))<<8 | uint64(t)
}

// noLaneKey is a key no lane project has (its project would be -1): the
// last one looked up before the first.
const noLaneKey = ^uint64(0)

// findLaneProject is the index in f.laneProjects of project p (key) in
// model m's group of tier t, added if new.
func (f *fairness) findLaneProject(key uint64, p, m int32, t uint8) int32 {
	i, ok := f.laneIDs[key]
	if !ok {
		for int(p) >= len(f.projectState) {
			f.projectState = append(f.projectState, projectState{})
		}
		gi := f.group(m, t)
		g := &f.groups[gi]
		i = int32(len(f.laneProjects))
		f.laneProjects = append(f.laneProjects, laneProject{window: -1, epStart: -1, local: int32(len(g.projects)),
			project: p, group: gi})
		g.projects = append(g.projects, i)
		f.laneIDs[key] = i
		l := &f.lanes[m]
		if !l.active {
			// in catalogue order
			l.active = true
			k, _ := slices.BinarySearch(f.activeLanes, m)
			f.activeLanes = slices.Insert(f.activeLanes, k, m)
		}
	}
	f.lastLaneKey, f.lastLaneIdx = key, i
	return i
}

// laneArrive: a job starts waiting on its lane; in: now is in the
// measurement window.
func (r *recorder) laneArrive(j *waitingJob, now Time, in bool) {
	f := &r.fair
	// Jobs come in batches: the last project looked up is checked first.
	if key := laneKey(j.project, j.model, uint8(j.tier)); key == f.lastLaneKey {
		j.lane = f.lastLaneIdx
	} else {
		j.lane = f.findLaneProject(key, j.project, j.model, uint8(j.tier))
	}
	lp := &f.laneProjects[j.lane]
	if lp.waiting++; lp.waiting > 1 {
		return
	}
	g := &f.groups[lp.group]
	if g.backlogged > 0 {
		if in {
			lp.epStart, lp.epOwed, lp.epGot = now, g.owed, 0
		}
	} else if g.multi {
		r.tierUp(g, now)
	}
	g.backlogged++
	f.noteLaneMoved(lp, j.lane)
}

// tierUp: the first job of group g's tier waits on its lane of several
// tiers.
func (r *recorder) tierUp(g *tierGroup, now Time) {
	l := &r.fair.lanes[g.model]
	r.tierSetChanges(l, now)
	t := g.tier
	k := 0
	for k < len(l.tiersUp) && l.tiersUp[k] < t {
		k++
	}
	l.tiersUp = slices.Insert(l.tiersUp, k, t)
}

// laneStart: a waiting job is admitted; in: now is in the measurement
// window. The rare cases are calls, so that the common path keeps its
// values in registers.
func (r *recorder) laneStart(j *waitingJob, now Time, in bool) {
	f := &r.fair
	lp := &f.laneProjects[j.lane]
	g := &f.groups[lp.group]
	g.owed += 1 / float64(g.backlogged)
	f.laneWindow(g, lp, j.lane)
	lp.admitted++
	g.admitted++
	if lp.epStart >= 0 {
		f.episodeAdmitted(lp, g.owed, now)
	}
	if g.multi {
		r.tierAdmitted(g, in)
	}
	if lp.waiting--; lp.waiting == 0 {
		g.backlogged--
		if lp.epStart >= 0 {
			// Everything it asked for is admitted: its share of a lane it
			// no longer waits on.
			f.episodeEnded(lp, now)
		}
		if g.backlogged == 0 && g.multi {
			r.tierDown(g, now)
		}
		f.noteLaneMoved(lp, j.lane)
	}
	if in && j.arrival >= r.windowStart {
		f.waits.add(float32((now - j.arrival).Seconds()))
	}
}

// episodeAdmitted: a project in a time-to-share episode was admitted a
// job; the episode ends if that brings it to its share.
func (f *fairness) episodeAdmitted(lp *laneProject, owed float64, now Time) {
	lp.epGot++
	if reachedShare(lp.epGot, owed-lp.epOwed) {
		f.episodeEnded(lp, now)
	}
}

// episodeEnded ends a project's time-to-share episode at now.
func (f *fairness) episodeEnded(lp *laneProject, now Time) {
	f.fairShare = append(f.fairShare, (now - lp.epStart).Seconds())
	lp.epStart = -1
}

// tierAdmitted: a job of group g's tier was admitted on its lane of
// several tiers; the tier rule counts it only while another tier waits
// too (the job's own tier is in tiersUp).
func (r *recorder) tierAdmitted(g *tierGroup, in bool) {
	if l := &r.fair.lanes[g.model]; len(l.tiersUp) > 1 && in {
		r.tierRule(l, g.tier)
	}
}

// tierDown: the last job of group g's tier waiting on its lane of several
// tiers was admitted.
func (r *recorder) tierDown(g *tierGroup, now Time) {
	l := &r.fair.lanes[g.model]
	if len(l.tiersUp) == 1 {
		l.tierSince = min(now, r.end) // no other tier waited meanwhile
		l.tiersUp = l.tiersUp[:0]
		return
	}
	r.tierSetChanges(l, now)
	k := 0
	for l.tiersUp[k] != g.tier {
		k++
	}
	l.tiersUp = append(l.tiersUp[:k], l.tiersUp[k+1:]...)
}

// tierRule counts an admission of tier t on a lane with two tiers or more
// waiting: the slot was left to each tier from the first down to t, and t
// took it.
func (r *recorder) tierRule(l *laneFair, t int8) {
	f := &r.fair
	for k, u := range l.tiersUp {
		if u > t || k == len(l.tiersUp)-1 {
			break
		}
		tr := &f.tierRules[uint8(u)]
		tr.offered++
		if k > 0 {
			tr.offeredHigher++
		}
		if u == t {
			tr.taken++
			if k > 0 {
				tr.takenHigher++
			}
		}
	}
	if l.tiersUp[0] < t {
		f.tierRules[uint8(t)].admittedHigher++
	}
}

// laneTokens: a call of the job was answered with these tokens. Only the
// project's window counts move: the group's admissions move in laneStart,
// which brings the group to the current window first.
func (r *recorder) laneTokens(j *waitingJob, tokens int64) {
	if r.blind {
		return
	}
	f := &r.fair
	lp := &f.laneProjects[j.lane]
	if lp.window != f.windowID {
		f.laneProjectWindow(lp, j.lane)
	}
	lp.tokens += tokens
}

// laneWindow moves a group's and its lane project's (i, lp) window counts
// to the current window.
func (f *fairness) laneWindow(l *tierGroup, lp *laneProject, i int32) {
	if lp.window != f.windowID {
		f.laneProjectWindow(lp, i)
	}
	if l.window != f.windowID {
		l.window, l.admitted = f.windowID, 0
	}
}

// laneProjectWindow moves lane project i's (lp) window counts to the
// current window, listing it among the window's (fairness.inWindow).
func (f *fairness) laneProjectWindow(lp *laneProject, i int32) {
	lp.window, lp.admitted, lp.tokens = f.windowID, 0, 0
	f.inWindow = append(f.inWindow, i)
}

// tierSetChanges adds the time since the lane's set of waiting tiers last
// changed, within the measurement window, to every tier in it below the
// first (a higher tier waited meanwhile).
func (r *recorder) tierSetChanges(l *laneFair, now Time) {
	now = min(now, r.end)
	if len(l.tiersUp) < 2 {
		l.tierSince = now
		return
	}
	if from := max(l.tierSince, r.windowStart); now > from {
		dt := (now - from).Seconds()
		for _, u := range l.tiersUp[1:] {
			r.fair.tierRules[uint8(u)].higherSeconds += dt
		}
	}
	l.tierSince = now
}

// laneWindows closes a fairness window on every lane: the lanes' tier
// groups with at least two projects backlogged through it, with Jain's
// index over their admissions and tokens. With close false it only narrows
// the candidates to the projects waiting at this sample. The groups' busy
// sets are up to date (syncBusy).
func (f *fairness) laneWindows(close, record bool, names []string) []results.LaneWindow {
	var out []results.LaneWindow
	for _, m := range f.activeLanes {
		for _, gi := range f.lanes[m].groups {
			if gi < 0 {
				continue
			}
			g := &f.groups[gi]
			if !close {
				g.candidates.Intersect(&g.busy)
				continue
			}
			if record {
				xs, ys := f.jainBuf[:0], f.jainTokBuf[:0]
				for p := g.candidates.Next(0); p >= 0; p = g.candidates.Next(p + 1) {
					lp := &f.laneProjects[g.projects[p]]
					var a, tok float64
					if lp.window == f.windowID {
						a, tok = float64(lp.admitted), float64(lp.tokens)
					}
					xs, ys = append(xs, a), append(ys, tok)
				}
				if len(xs) >= 2 {
					admitted := int64(0)
					if g.window == f.windowID {
						admitted = g.admitted
					}
					out = append(out, results.LaneWindow{Model: names[m], Tier: tierName(g.tier), Backlogged: len(xs), Admitted: admitted,
						Jain: results.Jain(xs), JainTokens: results.Jain(ys)})
				}
				f.jainBuf, f.jainTokBuf = xs, ys
			}
			g.candidates.Copy(&g.busy)
		}
	}
	return out
}

// laneFairness is what the run measured per lane, at its end: the tier
// rule's counts (time brought up to the end), the job waits and the
// time-to-share episodes with those still open censored.
func (r *recorder) laneFairness(d *results.FairnessData, waiting func(yield func(*waitingJob) bool)) {
	f := &r.fair
	end := min(r.now(), r.end)
	for _, m := range f.activeLanes {
		r.tierSetChanges(&f.lanes[m], r.now())
	}
	for t := range f.tierRules {
		tr := &f.tierRules[t]
		if *tr == (tierRule{}) {
			continue
		}
		d.Tiers = append(d.Tiers, results.TierRule{Tier: tierName(int8(t)), Offered: tr.offered, Taken: tr.taken,
			OfferedHigher: tr.offeredHigher, TakenHigher: tr.takenHigher,
			AdmittedHigher: tr.admittedHigher, HigherBackloggedHours: tr.higherSeconds / 3600})
	}
	var waits []float64
	if n := f.waits.len(); n > 0 {
		waits = make([]float64, 0, n)
	}
	f.waits.each(func(p []float32) {
		for _, w := range p {
			waits = append(waits, float64(w))
		}
	})
	d.Waits.Ended = waits
	for j := range waiting {
		if j.arrival >= r.windowStart {
			d.Waits.Censored = append(d.Waits.Censored, (end - j.arrival).Seconds())
		}
	}
	d.FairShare.Ended = append([]float64(nil), f.fairShare...)
	for _, m := range f.activeLanes {
		for _, gi := range f.lanes[m].groups {
			if gi < 0 {
				continue
			}
			for _, i := range f.groups[gi].projects {
				if lp := &f.laneProjects[i]; lp.epStart >= 0 {
					d.FairShare.Censored = append(d.FairShare.Censored, (end - lp.epStart).Seconds())
				}
			}
		}
	}
}
