package predict

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/evalsched/lab/sim"
)

// Measures are the figures a run is judged by, recorded or simulated.
// NaN: not recorded (the log's version does not record it).
type Measures struct {
	// Makespan: the first call issued to the last call answered, seconds.
	Makespan float64
	// InFlightMean and InFlightMax: calls at the provider (its successful
	// try under way), time-weighted over the makespan, and the most at once.
	InFlightMean, InFlightMax float64
	// WaitingMean: calls issued but not at the provider (waiting for a
	// connection, or in a failed try or its backoff), time-weighted.
	WaitingMean float64
	// Sample duration (admission to end) and call latency (the provider's
	// time for the successful try) quantiles, seconds.
	SampleP50, SampleP90   float64
	LatencyP50, LatencyP90 float64
	// Throttled is the tries refused by a quota (429s); not recorded by a
	// log (its retries do not say which were rate limits).
	Throttled float64
}

// interval is [from, to) in ns (recorded) or virtual ticks (simulated).
type interval struct{ from, to int64 }

// occupancy is the time-weighted mean and the max of overlapping intervals over [lo, hi).
func occupancy(iv []interval, lo, hi int64) (meanN, maxN float64) {
	if hi <= lo {
		return math.NaN(), math.NaN()
	}
	type edge struct {
		t int64
		d int
	}
	var es []edge
	var area float64
	for _, v := range iv {
		a, b := max(v.from, lo), min(v.to, hi)
		if b > a {
			area += float64(b - a)
		}
		es = append(es, edge{v.from, 1}, edge{v.to, -1})
	}
	slices.SortFunc(es, func(a, b edge) int { return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.d, b.d)) })
	n, m := 0, 0
	for _, e := range es {
		n += e.d
		m = max(m, n)
	}
	return area / float64(hi-lo), float64(m)
}

// recordedMeasures reads the figures off the process's logs.
func recordedMeasures(p *Process) Measures {
	var provider, issued []interval
	var lat, dur []float64
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	estimated := false
	for _, s := range p.Samples {
		if s.Admitted > 0 && s.Ended > s.Admitted {
			dur = append(dur, float64(s.Ended-s.Admitted)/1e9)
		}
		for _, t := range s.Turns {
			for _, c := range t.Calls {
				lo, hi = min(lo, c.Start), max(hi, c.End)
				issued = append(issued, interval{c.Start, c.End})
				w := c.Working.Nanoseconds()
				if w <= 0 {
					w = c.End - c.Start
				}
				provider = append(provider, interval{max(c.Start, c.End-w), c.End})
				lat = append(lat, float64(w)/1e9)
				estimated = estimated || c.EndEstimated
			}
		}
	}
	m := Measures{Makespan: float64(hi-lo) / 1e9, Throttled: math.NaN()}
	m.InFlightMean, m.InFlightMax = occupancy(provider, lo, hi)
	issuedMean, _ := occupancy(issued, lo, hi)
	m.WaitingMean = issuedMean - m.InFlightMean
	if estimated {
		// Before 0.3.71 a call's end is not recorded: a wait for a
		// connection cannot be told from the call.
		m.WaitingMean = math.NaN()
	}
	m.SampleP50, m.SampleP90 = quantile(dur, 0.5), quantile(dur, 0.9)
	m.LatencyP50, m.LatencyP90 = quantile(lat, 0.5), quantile(lat, 0.9)
	return m
}

// simMeasures reads the same figures off a replay's event log.
// share is a call's provider share of its connection hold, by pool and
// job: the provider's part is the hold's last share.
func simMeasures(log []sim.LogRecord, samples int, share shareFunc) (Measures, error) {
	created := map[int64]int64{}
	accepted := map[int64]int64{}
	start := map[int64]int64{}
	var provider, issued []interval
	var lat, dur []float64
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	finished, throttled := 0, 0
	for _, r := range log {
		t := int64(r.T)
		switch r.Event {
		case sim.LogJobStart:
			start[int64(r.Job)] = t
		case sim.LogJobFinish:
			dur = append(dur, sim.Time(t-start[int64(r.Job)]).Duration().Seconds())
			finished++
		case sim.LogCallCreate:
			created[r.Call] = t
			lo = min(lo, t)
		case sim.LogCallAccept:
			accepted[r.Call] = t
		case sim.LogCall429, sim.LogCallKey429:
			throttled++
		case sim.LogCallAnswer:
			sh := 1.0
			if v := share(r.Model, int64(r.Job)); v > 0 {
				sh = v
			}
			a := t - int64(sh*float64(t-accepted[r.Call]))
			provider = append(provider, interval{a, t})
			issued = append(issued, interval{created[r.Call], t})
			lat = append(lat, sim.Time(t-a).Duration().Seconds())
			hi = max(hi, t)
		}
	}
	if finished != samples {
		return Measures{}, fmt.Errorf("%d of %d samples finished in the replay", finished, samples)
	}
	m := Measures{Makespan: sim.Time(hi - lo).Duration().Seconds(), Throttled: float64(throttled)}
	m.InFlightMean, m.InFlightMax = occupancy(provider, lo, hi)
	issuedMean, _ := occupancy(issued, lo, hi)
	m.WaitingMean = issuedMean - m.InFlightMean
	m.SampleP50, m.SampleP90 = quantile(dur, 0.5), quantile(dur, 0.9)
	m.LatencyP50, m.LatencyP90 = quantile(lat, 0.5), quantile(lat, 0.9)
	return m, nil
}

// shareFunc is a call's provider share of its connection hold, by pool
// (lab model) and job (sample index).
type shareFunc func(pool int32, job int64) float64
