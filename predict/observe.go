package predict

import (
	"math"
	"slices"
	"sort"
	"time"
)

// observations are each model's calls with a recorded provider time, and
// whether the load at the provider is recorded for the model (every call
// of its pool records its end).
func observations(p *Process, h Harness) (map[string][]obs, map[string]bool) {
	type span struct{ from, to int64 }
	pools := map[string][]span{}
	exact := map[string]bool{}
	for _, s := range p.Samples {
		for _, t := range s.Turns {
			for _, c := range t.Calls {
				pl := poolOf(h, c.Model)
				if _, ok := exact[pl]; !ok {
					exact[pl] = true
				}
				w := c.Working.Nanoseconds()
				if w <= 0 || c.EndEstimated {
					exact[pl] = false
				}
				pools[pl] = append(pools[pl], span{c.End - max(w, 0), c.End})
			}
		}
	}
	starts, ends := map[string][]int64{}, map[string][]int64{}
	for pl, ss := range pools {
		for _, s := range ss {
			starts[pl] = append(starts[pl], s.from)
			ends[pl] = append(ends[pl], s.to)
		}
		slices.Sort(starts[pl])
		slices.Sort(ends[pl])
	}
	load := func(pl string, t int64) float64 {
		a := sort.Search(len(starts[pl]), func(i int) bool { return starts[pl][i] > t })
		b := sort.Search(len(ends[pl]), func(i int) bool { return ends[pl][i] > t })
		return float64(a - b)
	}
	// The calls issued and not answered (holding or waiting for a
	// connection) at each instant, per pool.
	istarts, iends := map[string][]int64{}, map[string][]int64{}
	for _, s := range p.Samples {
		for _, t := range s.Turns {
			for _, c := range t.Calls {
				pl := poolOf(h, c.Model)
				istarts[pl] = append(istarts[pl], c.Start)
				iends[pl] = append(iends[pl], c.End)
			}
		}
	}
	for pl := range istarts {
		slices.Sort(istarts[pl])
		slices.Sort(iends[pl])
	}
	outstanding := func(pl string, t int64) int {
		a := sort.Search(len(istarts[pl]), func(i int) bool { return istarts[pl][i] >= t }) // issued before t
		b := sort.Search(len(iends[pl]), func(i int) bool { return iends[pl][i] > t })      // answered by t
		return a - b
	}
	out := map[string][]obs{}
	lk := map[string]bool{}
	for i, s := range p.Samples {
		for _, t := range s.Turns {
			for _, c := range t.Calls {
				if c.Working <= 0 {
					continue
				}
				pl := poolOf(h, c.Model)
				o := obs{sample: i, in: float64(c.In), out: float64(c.Out), lat: c.Working.Seconds(), provider: c.Working.Seconds()}
				if exact[pl] {
					o.load = load(pl, c.End-c.Working.Nanoseconds())
					// A call issued while fewer than max_connections calls
					// were outstanding took a connection at once: its whole
					// time from generate() to completion held the connection
					// (inspect_ai model/_model.py generate: the pool is held
					// around _generate, its retries and the SDK's overhead;
					// output.time is only the successful HTTP request).
					// Under adaptive connections the limit moves: below
					// its floor a connection was free for certain.
					limit := h.MaxConnections
					if h.Adaptive {
						limit = h.AdaptiveMin
					}
					if outstanding(pl, c.Start) < limit {
						o.lat, o.free = float64(c.End-c.Start)/1e9, true
					}
				}
				out[c.Model] = append(out[c.Model], o)
				lk[c.Model] = exact[pl]
			}
		}
	}
	return out, lk
}

// handoffOf is the mean time from a sample's end to the next sample's
// admission that followed it (within a second), over the process's
// samples admitted after the first wave: the harness's own overhead of
// starting a sample (NaN: none measured).
func handoffOf(p *Process) float64 {
	var ends []int64
	for _, s := range p.Samples {
		if s.Ended > 0 {
			ends = append(ends, s.Ended)
		}
	}
	slices.Sort(ends)
	var gaps []float64
	for _, s := range p.Samples {
		if s.Admitted == 0 {
			continue
		}
		i := sort.Search(len(ends), func(i int) bool { return ends[i] > s.Admitted+int64(time.Millisecond)/2 })
		if i == 0 {
			continue
		}
		if g := s.Admitted - ends[i-1]; g < int64(time.Second) {
			gaps = append(gaps, max(0, float64(g)/1e9))
		}
	}
	if len(gaps) == 0 {
		return math.NaN()
	}
	return mean(gaps)
}
