package results

import (
	"math"
	"slices"

	"github.com/evalsched/lab/internal/quantile"
	"github.com/evalsched/lab/internal/reversal"
)

// SettleSamples is the number of consecutive series samples the limit must
// stay within its band for the segment to count as settled.
const SettleSamples = 30

// ownDisturbances keeps the disturbances on model and the global ones.
func ownDisturbances(ds []Disturbance, model string) []Disturbance {
	var out []Disturbance
	for _, d := range ds {
		if d.Model == "" || d.Model == model {
			out = append(out, d)
		}
	}
	return out
}

// segmentMetrics fills row's time to capacity, settling time, reversals per
// hour and depth error from the segment's rows (one model, time order), of
// span seconds, against target (≤ 0: unknown).
func segmentMetrics(row *ConvergenceRow, rows []SeriesRow, target, span float64) {
	at := row.Disturbance.Seconds()
	row.TimeToCapacity, row.SettlingTime = Never, Never
	for _, r := range rows {
		if r.Waiting == 0 || (r.Streams > 0 && float64(min(r.Inflight, r.Streams)) >= 0.95*float64(r.Streams)) {
			row.TimeToCapacity = r.T - at
			break
		}
	}
	if k := settleIndex(rows); k >= 0 {
		row.SettlingTime = rows[k].T - at
	}
	if span > 0 {
		row.ReversalsPerHour = float64(reversals(rows)) * 3600 / span
	}
	row.DepthErrMean, row.DepthErrP90 = Never, Never
	if target > 0 && len(rows) > 0 {
		errs := make([]float64, len(rows))
		sum := 0.0
		for i, r := range rows {
			errs[i] = math.Abs(float64(r.Depth) - target)
			sum += errs[i]
		}
		slices.Sort(errs)
		row.DepthErrMean = sum / float64(len(errs))
		row.DepthErrP90 = errs[quantile.Rank(len(errs), 0.9)]
	}
}

// settleIndex is the first k from which SettleSamples rows keep the limit
// within ±max(10%, 1) of rows[k]'s; -1 if none.
func settleIndex(rows []SeriesRow) int {
	for k := 0; k+SettleSamples <= len(rows); k++ {
		c := float64(rows[k].Limit)
		band := max(0.1*c, 1)
		ok := true
		for _, r := range rows[k : k+SettleSamples] {
			if math.Abs(float64(r.Limit)-c) > band {
				ok = false
				break
			}
		}
		if ok {
			return k
		}
	}
	return -1
}

// reversals counts the changes of direction between the limit's moves.
func reversals(rows []SeriesRow) int {
	return reversal.Count(len(rows), func(i int) int { return int(rows[i].Limit) })
}
