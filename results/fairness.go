package results

import (
	"fmt"

	"github.com/evalsched/lab/internal/enum"
)

// FairnessWindow is one fairness window: Jain's index on each lane over the
// projects backlogged on it (jobs waiting for that model at every sample)
// through the window, and the same index taken over every backlogged
// project whatever model it waited for (cross-lane: projects of an idle
// lane and of a saturated one compared as if they competed for the same
// slots, which they do not).
type FairnessWindow struct {
	Start float64 `json:"start_s"`
	End   float64 `json:"end_s"`
	// Backlogged and JainCrossLane: the projects backlogged through the
	// window on any lane, and Jain's index over their admissions.
	Backlogged    int     `json:"backlogged_projects"`
	JainCrossLane float64 `json:"jain_cross_lane"`
	// Lanes are the (lane, tier) pairs with at least two projects
	// backlogged on them through the window, in catalogue then tier order.
	Lanes []LaneWindow `json:"lanes"`
	// TierAdmitted counts the jobs admitted in the window per tier ("1" is
	// the highest), for tier shares over time.
	TierAdmitted map[string]int64 `json:"tier_admitted"`
}

// LaneWindow is Jain's index on one lane in one window over the projects
// of one tier backlogged on it through the window (those that take turns):
// by the jobs each was admitted, and by the tokens (input + output) of its
// calls answered in the window.
type LaneWindow struct {
	Model      string  `json:"model"`
	Tier       string  `json:"tier"`
	Backlogged int     `json:"backlogged_projects"`
	Admitted   int64   `json:"admitted"` // all the tier's admissions on the lane in the window: its weight
	Jain       float64 `json:"jain"`
	JainTokens float64 `json:"jain_tokens"`
}

// TierRule is the tier rule as the source states it ("a tier takes 80% of
// what is left to it"), measured per admission on each lane and summed over
// lanes in the measurement window. A slot is left to tier t when t and a
// lower tier have jobs waiting on the lane and no higher tier took it;
// Taken ÷ Offered is the share t took of what was left to it, against its
// weight (tier_share). OfferedHigher and TakenHigher count the same while a
// higher tier also waited. AdmittedHigher counts t's admissions while a
// higher tier waited on the lane, HigherBackloggedHours the lane-hours t
// had jobs waiting while a higher tier did: their ratio is the progress a
// lower tier keeps under higher-priority backlog.
type TierRule struct {
	Tier                  string  `json:"tier"`
	Offered               int64   `json:"offered"`
	Taken                 int64   `json:"taken"`
	OfferedHigher         int64   `json:"offered_higher_backlogged"`
	TakenHigher           int64   `json:"taken_higher_backlogged"`
	AdmittedHigher        int64   `json:"admitted_higher_backlogged"`
	HigherBackloggedHours float64 `json:"higher_backlogged_lane_hours"`
}

// BatchClass is why a batch's progress is tracked: it is large, or small
// and arrived behind a large one.
type BatchClass string

// The batch classes.
const (
	BatchLarge       BatchClass = "large"
	BatchBehindLarge BatchClass = "small_behind_large"
)

// BatchClasses are the classes a batches.csv row may carry.
var BatchClasses = []BatchClass{BatchLarge, BatchBehindLarge}

func (c BatchClass) String() string { return string(c) }

// ParseBatchClass reads a batches.csv class, refusing any other word. The
// class returned is the constant, so a loaded row keeps no part of the line.
func ParseBatchClass(s string) (BatchClass, error) {
	if c, ok := enum.Of(BatchClasses, s); ok {
		return c, nil
	}
	return "", fmt.Errorf("unknown %q (want %s)", s, enum.List(BatchClasses))
}

// BatchProgressRow samples the progress of one tracked batch: every large
// batch (more than LargeBatch jobs) and every small batch that arrived
// behind one. Written to batches.csv.
type BatchProgressRow struct {
	T       float64
	Batch   string
	Model   string
	Class   BatchClass
	Jobs    int32 // arrived so far
	Started int32
	Done    int32
}

// FairnessData is what a run measured of fairness.
type FairnessData struct {
	Windows      []FairnessWindow
	TierAdmitted map[string]int64
	Small        SmallBatches
	Tiers        []TierRule // by tier, highest first
	// Waits are the waits for a container of the jobs that arrived in the
	// window (censored: still waiting at the end); FairShare the times to
	// an equal share (censored: not reached by the end).
	Waits, FairShare Survival
}

// SmallBatches measures the small batches (at most the simulator's
// SmallBatch jobs) that arrived in the measurement window: how many, how
// many arrived while a large batch of the same model had jobs waiting
// (behind large), how many had not finished at the end, and their
// makespans (arrival of the first job to completion of the last), all and
// behind large: of those that finished, and, right-censored, the time the
// unfinished ones had been open at the end. A batch is folded in as it
// finishes, so a run keeps 8 bytes per finished small batch, not a row; an
// unfinished one is still live at the end and joins then. The makespans
// are in no particular order (their statistics sort them).
type SmallBatches struct {
	Count, BehindLarge, Unfinished  int
	Makespans, BehindLargeMakespans []float64
	Censored, BehindLargeCensored   []float64
}

// Add folds in one small batch: whether it was behind large, whether it
// finished, and its makespan (if unfinished, the time it has been open).
func (s *SmallBatches) Add(behindLarge, finished bool, makespan float64) {
	s.Count++
	if behindLarge {
		s.BehindLarge++
	}
	if !finished {
		s.Unfinished++
		s.Censored = append(s.Censored, makespan)
		if behindLarge {
			s.BehindLargeCensored = append(s.BehindLargeCensored, makespan)
		}
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
