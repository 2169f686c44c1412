package sim

import (
	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
)

// Lanes is what was measured on each model, in catalogue order.
func (w *World) Lanes() []results.LaneRaw {
	out := make([]results.LaneRaw, len(w.rec.lanes))
	judges := map[string]bool{}
	for _, b := range w.sc.Workload.Behaviours {
		if b.Grading != nil {
			judges[b.Grading.Judge] = true
		}
	}
	for i := range w.rec.lanes {
		m := &w.rec.lanes[i]
		out[i] = results.LaneRaw{
			Model: w.rec.names[i], Streams: w.prov.models[i].cfg.Streams,
			Arrived: m.arrived, Started: m.started, Completed: m.completed, Times: m.times.all(),
			Calls: m.calls, Tokens: float64(m.tokens), Rejected429: m.rejected429, Errors: m.errors, Failed: m.failed,
			QueueEntries: m.queueEntries, QueueWaitSum: m.queueWaitSum,
			DepthArea: m.depth.area, BusyArea: m.busy.area, RunningArea: m.running.area, GatewayOnlyArea: m.gwOnly.area,
			StreamArea: m.streams.area, Bill: m.bill, Grading: m.grading || judges[w.rec.names[i]],
		}
	}
	return out
}

// Production is each production stream's statistics over the whole run.
func (w *World) Production() []results.ProductionStats {
	out := make([]results.ProductionStats, len(w.rec.prod))
	for i := range w.rec.prod {
		p, cfg := &w.rec.prod[i], &w.sc.Production[i]
		th := cfg.OutageThreshold
		if th == 0 {
			th = scenario.DefaultOutageThreshold
		}
		minutes, outage := productionMinutes(p.minutes, th)
		out[i] = results.ProductionStats{Name: cfg.Name, Model: cfg.Model,
			Arrived: p.arrived, Answered: p.answered, Rejected429: p.rejected429, RejectedOutage: p.rejectedOutage,
			Failed: p.failed, FailedMinutes: p.failedMinutes, LatencySum: p.latencySum,
			OutageMinutes: outage, OutageThreshold: th, Minutes: minutes}
	}
	return out
}

// StreamRows sends the run's series.csv and batches.csv rows to sink as
// they are made instead of keeping them; call it before Run. Series then
// returns only the rows that carry a limit.
func (w *World) StreamRows(sink results.RowSink) {
	w.rec.rows, w.rec.mem = sink, nil
}

// keepLimit records the limit in the k-th sample's row.
func (m *laneMeter) keepLimit(k, limit int32) {
	if n := len(m.limits); n > 0 {
		last := &m.limits[n-1]
		if last.limit == limit && last.k+last.n == k {
			last.n++
			return
		}
	} else {
		m.limitLo, m.limitHi = limit, limit
	}
	m.limitLo, m.limitHi = min(m.limitLo, limit), max(m.limitHi, limit)
	m.limits = append(m.limits, limitRun{k: k, n: 1, limit: limit})
}

// Series is the time series sampled every series_interval. With
// StreamRows it is only what Convergence reads: the rows (time, model,
// limit) of the models whose limit moved, model by model.
func (w *World) Series() []results.SeriesRow {
	if w.rec.mem != nil {
		return w.rec.mem.Series
	}
	var out []results.SeriesRow
	for i := range w.rec.lanes {
		m := &w.rec.lanes[i]
		if m.limitLo == m.limitHi {
			continue
		}
		j := 0
		for _, run := range m.limits {
			for k := run.k; k < run.k+run.n; k++ {
				c := m.conv[j]
				j++
				out = append(out, results.SeriesRow{T: (Time(k) * w.rec.interval).Seconds(), Model: int32(i), Limit: run.limit,
					Depth: c.depth, Inflight: c.inflight, Waiting: c.waiting, Streams: c.streams})
			}
		}
	}
	return out
}

// BatchProgress is the progress of tracked batches (none with StreamRows).
func (w *World) BatchProgress() []results.BatchProgressRow {
	if w.rec.mem != nil {
		return w.rec.mem.Batches
	}
	return nil
}

// Log is the event log (Options.Log).
func (w *World) Log() []LogRecord {
	if w.log == nil {
		return nil
	}
	return w.log.records
}

// Counts are the whole-run totals.
func (w *World) Counts() Counts { return w.rec.counts }

// Fairness returns the run's fairness measurements. Its slices share the
// run's own arrays (results.Summarize copies before it sorts): read them,
// do not modify them.
func (w *World) Fairness() results.FairnessData {
	return w.rec.fairness(func(yield func(*waitingJob) bool) {
		w.byID.each(func(_ policies.JobID, slot int32) { yield(w.jobs.at(slot)) })
	})
}
