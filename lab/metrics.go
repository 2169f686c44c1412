package lab

import (
	"math"
	"strconv"

	"github.com/evalsched/lab/results"
	"gonum.org/v1/gonum/stat"
)

// The figures gate, sweep and tune read from a run, one name each (the
// docs/reference/metrics.md defines them). Lane AllLanes is the run's total;
// jain and outage_minutes exist only there; multiplier only when the run
// has a baseline run on the same seed, and only on lanes whose baseline
// completed at least NearZeroCompleted jobs.
const (
	MetricThroughput = "throughput_per_hour"
	MetricMultiplier = "multiplier"
	MetricTokens     = "tokens_per_hour"
	MetricTokenMult  = "token_multiplier"
	MetricP90        = "p90_job_time_s"
	MetricJain       = "jain"
	Metric429        = "rejected_429"
	MetricOutage     = "outage_minutes"
	MetricP90Queued  = "p90_container_wait_share"
	AllLanes         = results.AllLanes
	GradingLanes     = results.GradingLanes
)

// MetricsVersion numbers the definitions of the figures above (how each
// is computed from a run): a gate baseline records it, and one computed by
// other definitions is refused. Raise it with any change to RunMetrics,
// Aggregate or the summary fields they read.
const MetricsVersion = 2

// MetricNames lists the metrics in the order they are written.
var MetricNames = []string{MetricThroughput, MetricMultiplier, MetricTokens, MetricTokenMult, MetricP90, MetricJain, Metric429, MetricOutage, MetricP90Queued}

// NeedsBaseline says whether metric is a ratio to a baseline run on the
// same seed (multiplier, token_multiplier): those are averaged over seeds
// on the log scale, and a gate, sweep or tune that reads one runs the
// baseline too.
func NeedsBaseline(metric string) bool {
	return metric == MetricMultiplier || metric == MetricTokenMult
}

// MetricKey names one figure: a lane and a metric.
type MetricKey struct{ Lane, Metric string }

// MetricValue is one figure of one run.
type MetricValue struct {
	MetricKey
	Value float64
}

// RunMetrics reads the figures of run: the total first, then the grading
// total (when the run has grading lanes), then each lane in the run's order. old, if not nil, is the baseline run on the same seed,
// for the multiplier.
func RunMetrics(run results.Run, old *results.Run) []MetricValue {
	oldBy := map[string]results.Lane{}
	if old != nil {
		oldBy[AllLanes] = old.Total
		if old.Grading != nil {
			oldBy[GradingLanes] = *old.Grading
		}
		for _, l := range old.Lanes {
			oldBy[l.Model] = l
		}
	}
	var out []MetricValue
	add := func(lane, metric string, v float64) {
		out = append(out, MetricValue{MetricKey{lane, metric}, v})
	}
	laneFigures := func(name string, l results.Lane) {
		o, base := oldBy[name]
		base = base && o.Completed >= results.NearZeroCompleted // the ratios: not over a near-empty baseline
		add(name, MetricThroughput, l.ThroughputPerHour)
		if r := results.RatioOf(l.ThroughputPerHour, o.ThroughputPerHour); base && r != nil {
			add(name, MetricMultiplier, *r)
		}
		add(name, MetricTokens, l.TokensPerHour)
		if r := results.RatioOf(l.TokensPerHour, o.TokensPerHour); base && r != nil {
			add(name, MetricTokenMult, *r)
		}
		add(name, MetricP90, l.JobTime.Total.P90)
		if j := run.Fairness.JainCrossLane; name == AllLanes && j != nil {
			add(name, MetricJain, *j) // undefined: not measured, not 0
		}
		add(name, Metric429, float64(l.Rejected429))
		add(name, MetricP90Queued, l.P90ContainerWaitShare)
		if name == AllLanes {
			outage := 0.0
			for _, p := range run.Production {
				outage += float64(p.FailedMinutes)
			}
			add(name, MetricOutage, outage)
		}
	}
	laneFigures(AllLanes, run.Total)
	if run.Grading != nil {
		laneFigures(GradingLanes, *run.Grading)
	}
	for _, l := range run.Lanes {
		laneFigures(l.Model, l)
	}
	return out
}

// MetricAgg is one figure over seeds: the values in seed order, the mean
// (geometric for the multiplier), its standard error and a 95% interval
// (Student's t; on the log scale for the multiplier; clipped at 0, since no
// metric can be negative). With one seed there is no interval: Interval is
// false, SE 0 and Low and High the mean, and outputs leave them out.
type MetricAgg struct {
	MetricKey
	Values []float64
	// Seeds are the indices of the seeds (of perSeed) the values came
	// from: a figure a run lacks on some seed (a lane without jobs, a
	// multiplier over a near-empty baseline lane) has fewer values.
	Seeds     []int
	Mean, SE  float64
	Low, High float64
	Interval  bool // SE, Low and High were measured (two seeds or more)
}

// Aggregate gathers each figure over per-seed metric lists, in the order
// figures first appear.
func Aggregate(perSeed [][]MetricValue) []MetricAgg {
	idx := map[MetricKey]int{}
	var out []MetricAgg
	for k, vs := range perSeed {
		for _, v := range vs {
			i, ok := idx[v.MetricKey]
			if !ok {
				i = len(out)
				idx[v.MetricKey] = i
				out = append(out, MetricAgg{MetricKey: v.MetricKey})
			}
			out[i].Values = append(out[i].Values, v.Value)
			out[i].Seeds = append(out[i].Seeds, k)
		}
	}
	for i := range out {
		out[i].summarise()
	}
	return out
}

func (a *MetricAgg) summarise() {
	xs, n := a.Values, float64(len(a.Values))
	if NeedsBaseline(a.Metric) {
		g, lo, hi, ok := results.LogRatioCI(xs, 0.95)
		a.Mean, a.Low, a.High = g, g, g
		if ok {
			logs := make([]float64, len(xs))
			for i, x := range xs {
				logs[i] = math.Log(x)
			}
			a.SE = g * stat.StdDev(logs, nil) / math.Sqrt(n) // delta method
			a.Low, a.High, a.Interval = lo, hi, true
		}
		return
	}
	a.Mean = stat.Mean(xs, nil)
	a.Low, a.High = a.Mean, a.Mean
	if len(xs) > 1 {
		a.SE = stat.StdDev(xs, nil) / math.Sqrt(n)
		half := results.TQuantile(0.95, len(xs)-1) * a.SE
		a.Low, a.High, a.Interval = max(0, a.Mean-half), a.Mean+half, true
	}
}

// FormatFloat writes a number the way every CSV of the lab does: the
// shortest text that reads back as the same float64.
func FormatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
