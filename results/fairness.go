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

// BatchRow is one small batch: when it arrived, whether a large batch of the
// same model had jobs waiting then, and its makespan (arrival of its first job
// to completion of its last; 0 if unfinished at the end).
type BatchRow struct {
	Batch       string  `json:"batch"`
	Model       string  `json:"model"`
	Jobs        int     `json:"jobs"`
	Done        int     `json:"done"`
	Arrival     float64 `json:"arrival_s"`
	BehindLarge bool    `json:"behind_large"`
	Makespan    float64 `json:"makespan_s"`
}

// FairnessData is what a run measured of fairness.
type FairnessData struct {
	Windows      []FairnessWindow
	TierAdmitted map[string]int64
	SmallBatches []BatchRow
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
