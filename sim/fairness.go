package sim

import (
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

type batchState struct {
	name        string
	model       int
	started     int
	tracked     bool // progress is recorded (large, or small behind large)
	arrived     int
	waiting     int
	done        int
	firstArrive Time
	lastFinish  Time
	behindLarge bool
}

type fairness struct {
	projects     map[string]int32
	projectState []projectState
	batches      map[string]*batchState
	batchOrder   []string
	// per model: jobs waiting that belong to large batches
	largeWaiting []int
	tierAdmitted map[int8]int64 // in the measurement window
	tierWindow   map[int8]int64 // in the current fairness window
	windows      []results.FairnessWindow
	windowStart  Time
	tracked      []*batchState
	progress     []results.BatchProgressRow
}

func newFairness(models int) fairness {
	return fairness{projects: map[string]int32{}, batches: map[string]*batchState{},
		largeWaiting: make([]int, models), tierAdmitted: map[int8]int64{}, tierWindow: map[int8]int64{}}
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
	b := f.batches[j.w.Batch]
	if b == nil {
		b = &batchState{name: j.w.Batch, model: j.w.Model, firstArrive: r.now(), behindLarge: f.largeWaiting[j.w.Model] > 0}
		f.batches[j.w.Batch] = b
		f.batchOrder = append(f.batchOrder, j.w.Batch)
		if b.behindLarge {
			b.tracked = true
			f.tracked = append(f.tracked, b)
		}
	}
	b.arrived++
	b.waiting++
	switch {
	case b.arrived == LargeBatch+1:
		f.largeWaiting[b.model] += b.waiting
		if !b.tracked {
			b.tracked = true
			f.tracked = append(f.tracked, b)
		}
	case b.arrived > LargeBatch+1:
		f.largeWaiting[b.model]++
	}
}

func (r *recorder) fairStart(j *jobState) {
	f := &r.fair
	ps := &f.projectState[j.project]
	ps.waiting--
	ps.admitted++
	b := f.batches[j.w.Batch]
	b.waiting--
	b.started++
	f.tierWindow[int8(j.tier)]++
	if b.arrived > LargeBatch {
		f.largeWaiting[b.model]--
	}
	if r.inWindow() {
		f.tierAdmitted[int8(j.tier)]++
	}
}

func (r *recorder) fairFinish(j *jobState) {
	b := r.fair.batches[j.w.Batch]
	b.done++
	b.lastFinish = r.now()
}

// fairSample is called every series interval: it keeps the backlog flags and
// closes a fairness window every FairnessWindow.
func (r *recorder) fairSample() {
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
	// Progress of tracked batches; a finished one gets a last row and leaves.
	kept := f.tracked[:0]
	for _, b := range f.tracked {
		class := "small_behind_large"
		if b.arrived > LargeBatch {
			class = "large"
		}
		f.progress = append(f.progress, results.BatchProgressRow{T: now.Seconds(), Batch: b.name,
			Model: r.names[b.model], Class: class, Jobs: int32(b.arrived), Started: int32(b.started), Done: int32(b.done)})
		if b.done < b.arrived {
			kept = append(kept, b)
		}
	}
	f.tracked = kept
}

// fairness returns the run's fairness measurements.
func (r *recorder) fairness() results.FairnessData {
	f := &r.fair
	d := results.FairnessData{Windows: f.windows, TierAdmitted: map[string]int64{}}
	for t, n := range f.tierAdmitted {
		d.TierAdmitted[tierName(t)] = n
	}
	for _, name := range f.batchOrder {
		b := f.batches[name]
		if b.arrived > SmallBatch || b.firstArrive < r.windowStart {
			continue
		}
		row := results.BatchRow{Batch: name, Model: r.names[b.model], Jobs: b.arrived,
			Arrival: b.firstArrive.Seconds(), BehindLarge: b.behindLarge, Done: b.done}
		if b.done == b.arrived {
			row.Makespan = (b.lastFinish - b.firstArrive).Seconds()
		}
		d.SmallBatches = append(d.SmallBatches, row)
	}
	return d
}

func tierName(t int8) string { return strconv.Itoa(int(t)) }
