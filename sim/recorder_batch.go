package sim

import "github.com/evalsched/lab/results"

// batchEvent: batch request id had event ev; its pool's figures count it,
// and a completed request's latency, tokens and bill enter them when it
// ends in the measurement window.
func (r *recorder) batchEvent(w *World, id int32, ev LogEvent) {
	b := &w.batchReqs[id]
	p := &w.batch[b.pool]
	switch ev {
	case LogBatchSubmit:
		p.raw.Submitted++
	case LogBatchRefuse:
		p.raw.Refused++
	case LogBatchEnqueue:
		p.raw.PeakRequests = max(p.raw.PeakRequests, p.enqReq)
		p.raw.PeakTokens = max(p.raw.PeakTokens, p.enqTok)
	case LogBatchExpire:
		p.raw.Expired++
	case LogBatchDone:
		p.raw.Completed++
		r.batchDone(p, b)
	}
}

// batchDone: a completed batch request's latency, tokens and bill enter
// its pool's figures when it ends in the measurement window.
func (r *recorder) batchDone(p *batchPool, b *batchReq) {
	if !r.inWindow() {
		return
	}
	p.raw.Latencies = append(p.raw.Latencies, (r.now() - b.arrival).Seconds())
	in, out := float64(b.in), float64(b.out)
	p.raw.InputTokens += in
	p.raw.OutputTokens += out
	if r.prices != nil {
		pr := &r.prices[b.model]
		sync := in*pr[0] + out*pr[3]
		p.raw.SyncDollars += sync
		p.raw.Dollars += sync * p.factor
	}
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
