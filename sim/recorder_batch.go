package sim

import "github.com/evalsched/lab/results"

// measureBatchDone: a completed batch request's latency, tokens and bill
// enter its pool's figures when it ends in the measurement window.
func (w *World) measureBatchDone(p *batchPool, b *batchReq) {
	if !w.rec.inWindow() {
		return
	}
	p.raw.Latencies = append(p.raw.Latencies, (w.now() - b.arrival).Seconds())
	in, out := float64(b.in), float64(b.out)
	p.raw.InputTokens += in
	p.raw.OutputTokens += out
	if w.rec.prices != nil {
		pr := &w.rec.prices[b.model]
		sync := in*pr[0] + out*pr[3]
		p.raw.SyncDollars += sync
		p.raw.Dollars += sync * p.factor
	}
}

// logBatch records a batch request's event in the log, if kept: CountIn
// and CountOut are its input and output tokens.
func (w *World) logBatch(r int32, ev LogEvent) {
	if !w.rec.logOn {
		return
	}
	b := &w.batchReqs[r]
	w.rec.log = append(w.rec.log, LogRecord{T: w.now(), Event: ev, Job: b.job, Call: -1, Model: b.model,
		Org: int32(w.batch[b.pool].org), Tokens: b.in + b.out, CountIn: b.in, CountOut: b.out})
}

// BatchLanes is each batch pool with any request, as measured so far.
func (w *World) BatchLanes() []results.BatchLaneRaw {
	var out []results.BatchLaneRaw
	for i := range w.batch {
		p := &w.batch[i]
		if p.raw.Submitted == 0 {
			continue
		}
		raw := p.raw
		raw.Latencies = append([]float64(nil), p.raw.Latencies...)
		raw.Held, raw.Enqueued = int64(p.held.Len()), p.enqReq
		for wl := range w.rec.quota.use {
			u := w.rec.quota.use[wl][p.org]
			raw.AllRequests += u[0]
			raw.AllTokens += u[1]
			if wl > 0 {
				raw.ProdRequests += u[0]
				raw.ProdTokens += u[1]
			}
		}
		out = append(out, raw)
	}
	return out
}
