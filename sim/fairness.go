package sim

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/evalsched/lab/internal/bitset"
	"github.com/evalsched/lab/results"
)

// Fairness bookkeeping: admissions per project and per tier, backlog per
// project sampled every series interval, and each batch's arrival and finish.

// LargeBatch and SmallBatch are the sizes (jobs) above which a batch counts
// as large and at or below which it counts as small, for the "small batch
// behind a large one" metric.
const (
	LargeBatch = 1000
	SmallBatch = 50
)

// projectState is a project across lanes, kept at samples: a job's
// arrival and admission touch only its lane project (fairness_lanes.go).
type projectState struct {
	lanes    int32 // its lane projects in their groups' busy sets
	admitted int64 // at a window's end, its lane projects' admissions in the window
}

// batchState is one batch from its first arrival until its last job is done
// (then it is pruned: a later job with the same batch name starts a new
// one), as the world's identity table says. Its record is in
// fairness.batches at the world's batch key (its slot in identity.batches),
// which the world reuses once the batch ends; a tracked batch's state moves
// out to ext when it starts being tracked, so that it outlives the record
// until its last progress row.
type batchState struct {
	// 48 bytes: a backlog of single-job batches keeps millions live. Job
	// counts fit 32 bits (a run holds far fewer jobs). Its jobs waiting
	// are arrived − started. Its size (small, large) is submitted: the
	// jobs submitted to it, not the grading jobs chained onto them, whose
	// arrival depends on how far the policy got (a 30-job batch graded
	// would count 60 under one policy and 30 under one that never got its
	// jobs done).
	firstArrive Time
	lastFinish  Time
	model       int32
	started     int32
	arrived     int32
	done        int32
	inWindow    bool // arrived in the measurement window
	live        bool // not pruned yet
	behindLarge bool
	submitted   int32 // arrived, less the grading jobs
	// ext is the batch's state once it is tracked (the record then only
	// points there; ext.ext points to ext itself).
	ext *trackedBatch
}

// trackedBatch is a batch whose progress is (or was) recorded: large, or
// small behind large.
type trackedBatch struct {
	batchState
	name     string
	tracked  bool // progress is recorded
	dirty    bool // changed since its last row
	row      [3]int32
	trackSeq int64
	rowT     Time // time of its last row; -1 before the first
}

// state is the batch's state: the record itself, or where it moved.
func (b *batchState) state() *batchState {
	if b.ext != nil {
		return &b.ext.batchState
	}
	return b
}

type fairness struct {
	projectState []projectState // by the world's project key
	// The Jain index of a window is over the projects that had jobs
	// waiting at every sample of it: busy holds the projects with jobs
	// waiting; candidates, those that had jobs waiting at every sample of
	// the window so far (busy when it began, intersected with busy at each
	// sample). A sample then costs a word per 64 projects, and a window's
	// end reads the candidates in project order (so Jain sums in that
	// order) — not a pass over every project's record at every sample (a
	// trace of a million projects).
	// busy is read only at samples, so it is brought up to date there
	// (syncBusy), from the lane projects whose jobs waiting went to or
	// from none since the last sample (laneMoved). A project whose jobs
	// arrive and start between samples then costs no bitset work per job.
	busy, candidates bitset.Set
	windowID         int32
	jainBuf          []float64 // the candidates' admissions at a window's end
	// Batches by the world's batch key (its slot in identity.batches): a
	// table beside the world's, covering the slots it has handed out.
	batches slots[batchState]
	// small batches that arrived in the window, folded in as they are
	// pruned (the live ones join at the end)
	small smallBatches
	// per model: jobs waiting that belong to large batches
	largeWaiting []int
	// Admissions per tier (uint8(tier)) in the measurement window (those
	// in a fairness window are its groups', summed at its end).
	tierAdmitted [256]int64
	windows      []results.FairnessWindow
	windowStart  Time
	tracked      []*trackedBatch // in trackSeq order
	trackSeq     int64
	dirty        []*trackedBatch // tracked batches changed since the last sample
	untracked    int             // tracked batches done, to drop from tracked
	prevSample   Time            // the last sample's time (-1 before the first)

	// Per lane (fairness_lanes.go): each model's projects, found by
	// (project, model) in laneIDs, the last one looked up kept beside it;
	// the lanes that have had a job, in order of their first.
	lanes []laneFair
	// groups are every lane's tier groups, by laneFair.groups and
	// laneProject.group.
	groups []tierGroup
	// laneProjects are every lane's projects, by waitingJob.lane: a job's
	// project on its lane is one index away (laneTokens, at every call).
	laneProjects []laneProject
	// laneMoved lists (once each, laneProject.moved) the lane projects
	// whose jobs waiting went to or from none since the last sample;
	// inWindow, those whose window counts moved to the current window.
	laneMoved   []int32
	inWindow    []int32
	laneIDs     map[uint64]int32
	lastLaneKey uint64
	lastLaneIdx int32
	activeLanes []int32
	jainTokBuf  []float64
	tierRules   [256]tierRule
	// waits are the admitted jobs' waits (arrived in the window), 4 bytes
	// a job; fairShare the time-to-share episodes that ended.
	waits     pages[float32]
	fairShare []float64
}

func newFairness(models int) fairness {
	return fairness{largeWaiting: make([]int, models), prevSample: -1,
		lanes: make([]laneFair, models), laneIDs: map[uint64]int32{}, lastLaneKey: noLaneKey}
}

// batch is the state of the live batch with the world's key k.
func (f *fairness) batch(k int32) *batchState { return f.batches.at(k).state() }

// fairArrive: a job arrives at now, with its project and batch keys set
// by the world; fresh tells that its batch is new; in, that now is in the
// measurement window.
func (r *recorder) fairArrive(j *waitingJob, fresh bool, now Time, in bool) {
	f := &r.fair
	if fresh {
		f.batches.cover(j.batch)
		b := f.batches.at(j.batch)
		// Field by field: a composite literal would be built aside and
		// copied. ext is nil already (a batch's end clears it).
		b.firstArrive, b.lastFinish = now, 0
		b.model, b.started, b.arrived, b.done = j.model, 0, 1, 0
		b.submitted = 1
		if j.grading {
			b.submitted = 0
		}
		b.inWindow, b.live, b.behindLarge = in, true, f.largeWaiting[j.model] > 0
		if b.behindLarge {
			f.changed(f.track(b, r.ids.batchName(j.batch)))
		}
	} else {
		b := f.batch(j.batch)
		b.arrived++
		if !j.grading {
			b.submitted++
		}
		if b.submitted > LargeBatch {
			b = r.largeArrival(b, j.batch, j.grading)
		}
		f.changed(b)
	}
	r.laneArrive(j, now, in) // last, as in jobArrived
}

// largeArrival: a job of a batch larger than LargeBatch arrived (batch is
// its world key, b its state, grading whether the job is a grading job);
// it returns the state, moved if the batch starts being tracked.
func (r *recorder) largeArrival(b *batchState, batch int32, grading bool) *batchState {
	f := &r.fair
	if !grading && b.submitted == LargeBatch+1 {
		f.largeWaiting[b.model] += int(b.arrived - b.started) // its jobs waiting
		if b.ext == nil || !b.ext.tracked {
			b = f.track(f.batches.at(batch), r.ids.batchName(batch))
		}
		return b
	}
	f.largeWaiting[b.model]++
	return b
}

// track starts recording the progress of the batch whose record is rec,
// moving its state out of the table (if it was not before) and returning
// it; name is its batch name, which only its progress rows read.
func (f *fairness) track(rec *batchState, name string) *batchState {
	t := rec.ext
	if t == nil {
		t = &trackedBatch{batchState: *rec, rowT: -1}
		t.ext = t
		rec.ext = t
	}
	t.name, t.tracked, t.trackSeq = name, true, f.trackSeq
	f.trackSeq++
	f.tracked = append(f.tracked, t)
	return &t.batchState
}

// changed marks a tracked batch (b its state) for a progress row at the
// next sample.
func (f *fairness) changed(b *batchState) {
	if t := b.ext; t != nil && t.tracked && !t.dirty {
		t.dirty = true
		f.dirty = append(f.dirty, t)
	}
}

// fairStart: a waiting job is admitted at now; in tells that now is in the
// measurement window.
func (r *recorder) fairStart(j *waitingJob, now Time, in bool) {
	f := &r.fair
	if rec := f.batches.at(j.batch); rec.ext == nil {
		rec.started++ // not tracked, so not larger than LargeBatch
	} else {
		f.trackedStarted(&rec.ext.batchState)
	}
	if in {
		f.tierAdmitted[uint8(j.tier)]++
	}
	r.laneStart(j, now, in) // last, as in jobStarted
}

// trackedStarted: a job of a tracked batch (b its state) is admitted.
func (f *fairness) trackedStarted(b *batchState) {
	b.started++
	f.changed(b)
	if b.submitted > LargeBatch {
		f.largeWaiting[b.model]--
	}
}

// fairFinish: a job is done at now; ended tells that its batch ended with
// it (the world's identity table decides).
func (r *recorder) fairFinish(j *waitingJob, ended bool, now Time) {
	f := &r.fair
	rec := f.batches.at(j.batch)
	if rec.ext != nil {
		f.trackedFinished(rec, ended, now)
		return
	}
	// Not tracked: the record is the batch's state, and the batch is not
	// behind a large one (that one is tracked from its first job).
	rec.done++
	rec.lastFinish = now
	if ended {
		// All its jobs are done: smallMakespan's finished batch, which
		// smallBatches.add counts so.
		rec.live = false
		if rec.submitted <= SmallBatch && rec.inWindow {
			f.small.count++
			f.small.makespans.add((now - rec.firstArrive).Seconds())
		}
	}
}

// trackedFinished: a job of the tracked batch whose record is rec is done
// at now; ended tells that the batch ended with it.
func (f *fairness) trackedFinished(rec *batchState, ended bool, now Time) {
	b := &rec.ext.batchState
	b.done++
	b.lastFinish = now
	f.changed(b)
	if ended {
		if ok, finished, makespan := smallMakespan(b, now); ok {
			f.small.add(b.behindLarge, finished, makespan)
		}
		// The world may reuse the record; the state stays in f.tracked
		// until its last row.
		b.live = false
		rec.live, rec.ext = false, nil
	}
}

// liveBatches are the batches not pruned, in the order of their keys.
func (f *fairness) liveBatches() []*batchState {
	var out []*batchState
	for s := range f.batches.n {
		if b := f.batches.at(s).state(); b.live {
			out = append(out, b)
		}
	}
	return out
}

// fairSample is called every series interval: it keeps the backlog flags and
// closes a fairness window every FairnessWindow.
func (r *recorder) fairSample(last bool) {
	f := &r.fair
	now := r.now()
	if r.blind {
		return
	}
	f.syncBusy()
	if now-f.windowStart >= r.fairWindow {
		record := f.windowStart >= r.windowStart
		lanes := f.laneWindows(true, record, r.names)
		if lanes == nil {
			lanes = []results.LaneWindow{}
		}
		if record {
			f.windowAdmitted(true)
			xs := f.jainBuf[:0]
			for p := f.candidates.Next(0); p >= 0; p = f.candidates.Next(p + 1) {
				xs = append(xs, float64(f.projectState[p].admitted))
			}
			f.windowAdmitted(false)
			f.windows = append(f.windows, results.FairnessWindow{Start: f.windowStart.Seconds(), End: now.Seconds(),
				Backlogged: len(xs), JainCrossLane: results.Jain(xs), Lanes: lanes, TierAdmitted: f.tierWindow()})
			f.jainBuf = xs
		}
		f.inWindow = f.inWindow[:0]
		f.windowStart = now
		f.windowID++
		// The new window's candidates: the projects with jobs waiting now.
		f.candidates.Copy(&f.busy)
	} else {
		// Out of the window: the projects with no job waiting at this sample.
		f.candidates.Intersect(&f.busy)
		f.laneWindows(false, false, nil)
	}
	r.progressRows(now, last)
	f.prevSample = now
}

// windowAdmitted adds (add) the current window's admissions of the lane
// projects listed in it to their projects' admitted, or takes them back
// out (leaving every project's at 0).
func (f *fairness) windowAdmitted(add bool) {
	for _, i := range f.inWindow {
		lp := &f.laneProjects[i]
		if add {
			f.projectState[lp.project].admitted += lp.admitted
		} else {
			f.projectState[lp.project].admitted = 0
		}
	}
}

// tierWindow is the current window's admissions by tier name: its groups'.
func (f *fairness) tierWindow() map[string]int64 {
	var n [256]int64
	for i := range f.groups {
		if g := &f.groups[i]; g.window == f.windowID {
			n[uint8(g.tier)] += g.admitted
		}
	}
	return tierMap(&n)
}

// progressRows writes the progress rows of tracked batches at a sample. A
// batch gets a row at its first sample, at every sample where its arrived,
// started or done count differs from the previous sample (preceded by a row
// at the previous sample if its last row is older, so that the rows trace
// the same steps as a row at every sample would), and at the last sample of
// the run; a batch leaves at the first sample where all its jobs are done.
func (r *recorder) progressRows(now Time, last bool) {
	f := &r.fair
	rows := f.dirty
	if last {
		rows = f.tracked
	} else {
		slices.SortFunc(rows, func(a, b *trackedBatch) int { return cmp.Compare(a.trackSeq, b.trackSeq) })
	}
	for _, b := range rows {
		if !b.tracked {
			continue
		}
		if b.dirty && b.rowT >= 0 && b.rowT < f.prevSample {
			r.progressRow(b, f.prevSample, b.row)
		}
		b.dirty = false
		if b.rowT < now {
			r.progressRow(b, now, [3]int32{b.arrived, b.started, b.done})
		}
		if b.done >= b.arrived {
			b.tracked = false
			f.untracked++
		}
	}
	f.dirty = f.dirty[:0]
	if f.untracked > 0 {
		f.tracked = slices.DeleteFunc(f.tracked, func(b *trackedBatch) bool { return !b.tracked })
		f.untracked = 0
	}
}

func (r *recorder) progressRow(b *trackedBatch, t Time, v [3]int32) {
	class := results.BatchBehindLarge
	if v[0] > LargeBatch {
		class = results.BatchLarge
	}
	r.rows.BatchRow(results.BatchProgressRow{T: t.Seconds(), Batch: b.name, Model: r.names[b.model], Class: class,
		Jobs: v[0], Started: v[1], Done: v[2]})
	b.rowT, b.row = t, v
}

// fairness returns the run's fairness measurements; waiting yields the
// jobs still waiting at the end.
func (r *recorder) fairness(waiting func(yield func(*waitingJob) bool)) results.FairnessData {
	f := &r.fair
	// The pruned small batches and those still live at the end, joined into
	// new arrays, so that the run's own measurements stay as they are.
	live := f.liveBatches()
	small := f.small.results(len(live))
	for _, b := range live {
		if ok, finished, makespan := smallMakespan(b, r.now()); ok {
			small.Add(b.behindLarge, finished, makespan)
		}
	}
	d := results.FairnessData{Windows: f.windows, TierAdmitted: tierMap(&f.tierAdmitted), Small: small}
	r.laneFairness(&d, waiting)
	return d
}

// tierMap is the tiers admitted, by name.
func tierMap(n *[256]int64) map[string]int64 {
	m := map[string]int64{}
	for t, v := range n {
		if v != 0 {
			m[tierName(int8(t))] = v
		}
	}
	return m
}

func tierName(t int8) string { return strconv.Itoa(int(t)) }
