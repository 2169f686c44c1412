package sim

import (
	"cmp"
	"slices"
	"strconv"

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

type projectState struct {
	waiting         int
	admitted        int64 // in the current fairness window
	backloggedSoFar bool  // waiting > 0 at every sample of the current window
}

// batchState is one batch from its first arrival until its last job is done
// (then it is pruned: a later job with the same batch name starts a new one).
type batchState struct {
	name        string
	id          int32 // key in fairness.batches (a job's jobState.batch)
	seq         int64 // arrival order of the batch
	model       int
	started     int
	arrived     int
	waiting     int
	done        int
	firstArrive Time
	lastFinish  Time
	behindLarge bool

	// Progress rows (tracked batches only).
	tracked  bool // progress is recorded (large, or small behind large)
	trackSeq int64
	dirty    bool // changed since its last row
	rowT     Time // time of its last row; -1 before the first
	row      [3]int32
}

type fairness struct {
	projects     map[string]int32
	projectState []projectState
	// Live batches: by name (for arrivals) and by key; pruned when done.
	batchIDs  map[string]int32
	batches   map[int32]*batchState
	nextBatch int32
	batchSeq  int64
	small     []smallBatch // small batches of the window, pruned or at the end
	// per model: jobs waiting that belong to large batches
	largeWaiting []int
	tierAdmitted map[int8]int64 // in the measurement window
	tierWindow   map[int8]int64 // in the current fairness window
	windows      []results.FairnessWindow
	windowStart  Time
	tracked      []*batchState // in trackSeq order
	trackSeq     int64
	dirty        []*batchState // tracked batches changed since the last sample
	untracked    int           // tracked batches done, to drop from tracked
	prevSample   Time          // the last sample's time (-1 before the first)
}

// smallBatch is a small batch's row with its arrival order.
type smallBatch struct {
	seq int64
	row results.BatchRow
}

func newFairness(models int) fairness {
	return fairness{projects: map[string]int32{}, batchIDs: map[string]int32{}, batches: map[int32]*batchState{},
		largeWaiting: make([]int, models), tierAdmitted: map[int8]int64{}, tierWindow: map[int8]int64{}, prevSample: -1}
}

func (r *recorder) fairArrive(j *jobState) {
	f := &r.fair
	p, ok := f.projects[j.w.Project]
	if !ok {
		p = int32(len(f.projectState))
		f.projects[j.w.Project] = p
		f.projectState = append(f.projectState, projectState{})
	}
	f.projectState[p].waiting++
	j.project = p
	var b *batchState
	if id, ok := f.batchIDs[j.w.Batch]; ok {
		b = f.batches[id]
	} else {
		b = &batchState{name: j.w.Batch, id: f.nextBatch, seq: f.batchSeq, model: j.w.Model, firstArrive: r.now(),
			behindLarge: f.largeWaiting[j.w.Model] > 0, rowT: -1}
		f.nextBatch++
		f.batchSeq++
		f.batchIDs[b.name] = b.id
		f.batches[b.id] = b
		if b.behindLarge {
			f.track(b)
		}
	}
	j.batch = b.id
	b.arrived++
	b.waiting++
	switch {
	case b.arrived == LargeBatch+1:
		f.largeWaiting[b.model] += b.waiting
		if !b.tracked {
			f.track(b)
		}
	case b.arrived > LargeBatch+1:
		f.largeWaiting[b.model]++
	}
	f.changed(b)
}

// track starts recording a batch's progress.
func (f *fairness) track(b *batchState) {
	b.tracked, b.trackSeq = true, f.trackSeq
	f.trackSeq++
	f.tracked = append(f.tracked, b)
}

// changed marks a tracked batch for a progress row at the next sample.
func (f *fairness) changed(b *batchState) {
	if b.tracked && !b.dirty {
		b.dirty = true
		f.dirty = append(f.dirty, b)
	}
}

func (r *recorder) fairStart(j *jobState) {
	f := &r.fair
	ps := &f.projectState[j.project]
	ps.waiting--
	ps.admitted++
	b := f.batches[j.batch]
	b.waiting--
	b.started++
	f.changed(b)
	f.tierWindow[int8(j.tier)]++
	if b.arrived > LargeBatch {
		f.largeWaiting[b.model]--
	}
	if r.inWindow() {
		f.tierAdmitted[int8(j.tier)]++
	}
}

func (r *recorder) fairFinish(j *jobState) {
	f := &r.fair
	b := f.batches[j.batch]
	b.done++
	b.lastFinish = r.now()
	f.changed(b)
	// Done, with no grading job to follow: prune it from the maps (a tracked
	// batch stays in f.tracked for its last row).
	if b.done == b.arrived && j.w.Judge < 0 {
		if row, ok := r.smallRow(b); ok {
			f.small = append(f.small, row)
		}
		delete(f.batchIDs, b.name)
		delete(f.batches, b.id)
	}
}

// smallRow is the row of a small batch that arrived in the window.
func (r *recorder) smallRow(b *batchState) (smallBatch, bool) {
	if b.arrived > SmallBatch || b.firstArrive < r.windowStart {
		return smallBatch{}, false
	}
	row := results.BatchRow{Batch: b.name, Model: r.names[b.model], Jobs: b.arrived,
		Arrival: b.firstArrive.Seconds(), BehindLarge: b.behindLarge, Done: b.done}
	if b.done == b.arrived {
		row.Makespan = (b.lastFinish - b.firstArrive).Seconds()
	}
	return smallBatch{b.seq, row}, true
}

// fairSample is called every series interval: it keeps the backlog flags and
// closes a fairness window every FairnessWindow.
func (r *recorder) fairSample(last bool) {
	f := &r.fair
	now := r.now()
	if now-f.windowStart >= r.fairWindow {
		if f.windowStart >= r.windowStart {
			var xs []float64
			for i := range f.projectState {
				if f.projectState[i].backloggedSoFar {
					xs = append(xs, float64(f.projectState[i].admitted))
				}
			}
			tiers := map[string]int64{}
			for t, n := range f.tierWindow {
				tiers[tierName(t)] = n
			}
			f.windows = append(f.windows, results.FairnessWindow{Start: f.windowStart.Seconds(), End: now.Seconds(),
				Backlogged: len(xs), Jain: results.Jain(xs), TierAdmitted: tiers})
		}
		clear(f.tierWindow)
		f.windowStart = now
		for i := range f.projectState {
			f.projectState[i].admitted = 0
			f.projectState[i].backloggedSoFar = true
		}
	}
	for i := range f.projectState {
		ps := &f.projectState[i]
		ps.backloggedSoFar = ps.backloggedSoFar && ps.waiting > 0
	}
	r.progressRows(now, last)
	f.prevSample = now
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
		slices.SortFunc(rows, func(a, b *batchState) int { return cmp.Compare(a.trackSeq, b.trackSeq) })
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
			r.progressRow(b, now, [3]int32{int32(b.arrived), int32(b.started), int32(b.done)})
		}
		if b.done >= b.arrived {
			b.tracked = false
			f.untracked++
		}
	}
	f.dirty = f.dirty[:0]
	if f.untracked > 0 {
		f.tracked = slices.DeleteFunc(f.tracked, func(b *batchState) bool { return !b.tracked })
		f.untracked = 0
	}
}

func (r *recorder) progressRow(b *batchState, t Time, v [3]int32) {
	class := "small_behind_large"
	if v[0] > LargeBatch {
		class = "large"
	}
	r.rows.BatchRow(results.BatchProgressRow{T: t.Seconds(), Batch: b.name, Model: r.names[b.model], Class: class,
		Jobs: v[0], Started: v[1], Done: v[2]})
	b.rowT, b.row = t, v
}

// fairness returns the run's fairness measurements.
func (r *recorder) fairness() results.FairnessData {
	f := &r.fair
	d := results.FairnessData{Windows: f.windows, TierAdmitted: map[string]int64{}}
	for t, n := range f.tierAdmitted {
		d.TierAdmitted[tierName(t)] = n
	}
	small := slices.Clone(f.small)
	for _, b := range f.batches { // the batches not done at the end
		if row, ok := r.smallRow(b); ok {
			small = append(small, row)
		}
	}
	slices.SortFunc(small, func(a, b smallBatch) int { return cmp.Compare(a.seq, b.seq) })
	for _, s := range small {
		d.SmallBatches = append(d.SmallBatches, s.row)
	}
	return d
}

func tierName(t int8) string { return strconv.Itoa(int(t)) }
