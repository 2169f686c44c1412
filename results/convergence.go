package results

import (
	"sort"
)

// Disturbance is an instant after which a controller must settle again: the
// start of the run, a burst of batches, a provider capacity change.
type Disturbance struct {
	T     float64 `json:"t_s"`
	Label string  `json:"label"`
}

// ConvergenceRow is how one model's running-job limit behaved after one
// disturbance, up to the next one (or the end of the run).
//
//   - Settled: the median limit over the last quarter of the segment.
//   - Band: ± max(10% of Settled, 2) around it.
//   - TimeToBand: from the disturbance to the first sample from which the
//     limit stays in the band to the end of the segment; -1 if it never does.
//   - Overshoot: how far past Settled the limit went on the far side from
//     where it started, as a fraction of Settled (0 if it never crossed).
//   - Oscillation: half the peak-to-peak range of the limit once in band.
type ConvergenceRow struct {
	Model       string  `json:"model"`
	Disturbance string  `json:"disturbance"`
	At          float64 `json:"at_s"`
	Settled     float64 `json:"settled_limit"`
	TimeToBand  float64 `json:"time_to_band_s"`
	Overshoot   float64 `json:"overshoot"`
	Oscillation float64 `json:"oscillation"`
}

// Convergence measures every model whose limit moved at all, after every
// disturbance. Series rows must be in time order.
func Convergence(series []SeriesRow, models []string, ds []Disturbance, end float64) []ConvergenceRow {
	byModel := map[int32][]SeriesRow{}
	for _, r := range series {
		if r.Limit >= 0 {
			byModel[r.Model] = append(byModel[r.Model], r)
		}
	}
	ds = append([]Disturbance(nil), ds...)
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].T < ds[j].T })
	var ids []int32
	for m, rows := range byModel {
		lo, hi := rows[0].Limit, rows[0].Limit
		for _, r := range rows {
			lo, hi = min(lo, r.Limit), max(hi, r.Limit)
		}
		if hi > lo {
			ids = append(ids, m)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var out []ConvergenceRow
	for _, m := range ids {
		rows := byModel[m]
		for i, d := range ds {
			t1 := end
			if i+1 < len(ds) {
				t1 = ds[i+1].T
			}
			var seg []float64
			var ts []float64
			for _, r := range rows {
				if r.T >= d.T && r.T < t1 {
					seg = append(seg, float64(r.Limit))
					ts = append(ts, r.T)
				}
			}
			if len(seg) < 4 {
				continue
			}
			out = append(out, convergeSegment(models[m], d, seg, ts))
		}
	}
	return out
}

func convergeSegment(model string, d Disturbance, seg, ts []float64) ConvergenceRow {
	tail := append([]float64(nil), seg[len(seg)*3/4:]...)
	sort.Float64s(tail)
	settled := tail[len(tail)/2]
	band := max(0.1*settled, 2)
	row := ConvergenceRow{Model: model, Disturbance: d.Label, At: d.T, Settled: settled, TimeToBand: -1}
	k := len(seg)
	for k > 0 && abs(seg[k-1]-settled) <= band {
		k--
	}
	if k < len(seg) {
		row.TimeToBand = ts[k] - d.T
		lo, hi := seg[k], seg[k]
		for _, v := range seg[k:] {
			lo, hi = min(lo, v), max(hi, v)
		}
		row.Oscillation = (hi - lo) / 2
	}
	if settled > 0 {
		if seg[0] < settled {
			hi := seg[0]
			for _, v := range seg {
				hi = max(hi, v)
			}
			row.Overshoot = max(0, hi-settled) / settled
		} else {
			lo := seg[0]
			for _, v := range seg {
				lo = min(lo, v)
			}
			row.Overshoot = max(0, settled-lo) / settled
		}
	}
	return row
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
