package results

// FairnessWindow is Jain's index over the projects that stayed backlogged
// (jobs waiting at every sample) through one window, computed on the jobs
// each admitted in it.
type FairnessWindow struct {
	Start      float64 `json:"start_s"`
	End        float64 `json:"end_s"`
	Backlogged int     `json:"backlogged_projects"`
	Jain       float64 `json:"jain"`
	// TierAdmitted counts the jobs admitted in the window per tier ("1" is
	// the highest), for tier shares over time.
	TierAdmitted map[string]int64 `json:"tier_admitted"`
}

// BatchProgressRow samples the progress of one tracked batch: every large
// batch (more than LargeBatch jobs) and every small batch that arrived
// behind one. Written to batches.csv.
type BatchProgressRow struct {
	T       float64
	Batch   string
	Model   string
	Class   string // "large" or "small_behind_large"
	Jobs    int32  // arrived so far
	Started int32
	Done    int32
}

// FairnessData is what a run measured of fairness.
type FairnessData struct {
	Windows      []FairnessWindow
	TierAdmitted map[string]int64
	Small        SmallBatches
}

// SmallBatches measures the small batches (at most the simulator's
// SmallBatch jobs) that arrived in the measurement window: how many, how
// many arrived while a large batch of the same model had jobs waiting
// (behind large), how many had not finished at the end, and the makespans
// (arrival of the first job to completion of the last) of those that
// finished, all and behind large. A batch is folded in as it finishes, so
// a run keeps 8 bytes per finished small batch, not a row; the makespans
// are in no particular order (their statistics sort them).
type SmallBatches struct {
	Count, BehindLarge, Unfinished  int
	Makespans, BehindLargeMakespans []float64
}

// Add folds in one small batch: whether it was behind large, and its
// makespan if it finished.
func (s *SmallBatches) Add(behindLarge, finished bool, makespan float64) {
	s.Count++
	if behindLarge {
		s.BehindLarge++
	}
	if !finished {
		s.Unfinished++
		return
	}
	s.Makespans = append(s.Makespans, makespan)
	if behindLarge {
		s.BehindLargeMakespans = append(s.BehindLargeMakespans, makespan)
	}
}

// Jain is Jain's fairness index (Σx)² / (n Σx²): 1 when all equal, 1/n when
// one takes everything. It is 1 for fewer than two values or all zeros.
func Jain(xs []float64) float64 {
	if len(xs) < 2 {
		return 1
	}
	var s, s2 float64
	for _, x := range xs {
		s += x
		s2 += x * x
	}
	if s2 == 0 {
		return 1
	}
	return s * s / (float64(len(xs)) * s2)
}
