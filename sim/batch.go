package sim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/evalsched/lab/internal/ring"
	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/workloads"
)

// The batch lane. A job of a batch class (workloads.Behaviour.Batch) is
// one deferrable call: on arrival it goes to the batch API of the
// organisation its model bills to (scenario organisations[].batch), not
// to the policy, a container or the gateway. The pool holds a request
// from when it is enqueued until it completes or expires; a request that
// would take the pool past its limit of enqueued requests or input
// tokens is held, first come first served, until earlier ones leave; one
// larger than the token limit alone is refused. An enqueued request
// completes after a lognormal draw from the pool's own stream, or
// expires at the end of the window when the draw is beyond it. The pool
// is apart from the synchronous quotas: its calls count in no quota
// window, which is what moving them there buys production.

// Named sentinels of the batch lane's tables.
const (
	noBatchPool int32 = -1 // a model whose evaluation organisation has no batch API
	orgPool     int32 = -1 // batchPool.model of an organisation-wide pool
)

// batchPool is one batch API pool: an organisation's, or one model's in it.
type batchPool struct {
	org            int
	model          int32 // orgPool: the organisation's pool
	limReq, limTok int64 // 0: no limit
	window         Time
	mu, sigma      float64 // ln seconds of the completion time
	factor         float64 // price factor
	rn             *rand.Rand
	enqReq, enqTok int64
	held           ring.Ring[int32] // requests waiting for room, in order
	raw            results.BatchLaneRaw
}

// batchReq is one batch request: a batch job's call.
type batchReq struct {
	pool     int32
	model    int32
	in, out  int32
	job      policies.JobID
	arrival  Time
	expires  bool
	enqueued bool
}

// newBatchPools builds the pools of every organisation with a batch API and
// each model's pool index (noBatchPool: its evaluation organisation has none).
func newBatchPools(sc *scenario.Scenario, prov *Provider, seed uint64) ([]batchPool, []int32) {
	var pools []batchPool
	of := make([]int32, len(prov.models))
	for i := range of {
		of[i] = noBatchPool
	}
	names := sc.Catalogue()
	for k := range sc.Organisations {
		o := &sc.Organisations[k]
		b := o.Batch
		if b == nil {
			continue
		}
		add := func(model int32, stream string) int32 {
			pools = append(pools, batchPool{org: k, model: model, limReq: int64(b.EnqueuedRequests), limTok: int64(b.EnqueuedTokens),
				window: FromDuration(b.Window), mu: math.Log(b.Median.Seconds()), sigma: b.SigmaValue(), factor: b.PriceFactor,
				rn:  rand.New(rand.NewPCG(workloads.Stream(seed, stream), 5)),
				raw: results.BatchLaneRaw{Org: o.Name, LimitRequests: b.EnqueuedRequests, LimitTokens: b.EnqueuedTokens}})
			return int32(len(pools) - 1)
		}
		shared := noBatchPool
		for m := range prov.models {
			if prov.models[m].evalOrg != k {
				continue
			}
			switch {
			case b.Scope == scenario.BatchScopeModel:
				of[m] = add(int32(m), "batch/"+o.Name+"/"+names[m])
				pools[of[m]].raw.Model = names[m]
			case shared == noBatchPool:
				shared = add(orgPool, "batch/"+o.Name)
				of[m] = shared
			default:
				of[m] = shared
			}
		}
	}
	return pools, of
}

// batchArrive sends a batch job's call to its model's batch pool.
func (w *World) batchArrive(job *workloads.Job) {
	pi := w.batchOf[job.Model]
	if pi == noBatchPool {
		w.err = fmt.Errorf("job %d: its class goes to a batch API (batch: true), and model %s bills to an organisation without one (organisations[].batch)",
			job.ID, w.sc.Catalogue()[job.Model])
		return
	}
	var a workloads.Agent
	a.Start(job.Behaviour, job.Seed, w.agentSrc)
	a.NextTurn(w.agentSrc)
	in, out, _ := a.NextCall(w.agentSrc)
	id := w.nextID
	w.nextID++
	r := takeSlot(&w.batchReqs, &w.freeB)
	w.batchReqs[r] = batchReq{pool: pi, model: int32(job.Model), in: int32(in), out: int32(out), job: id, arrival: w.now()}
	p := &w.batch[pi]
	w.emit(&obs{kind: obsBatch, id: r, ev: LogBatchSubmit})
	switch {
	case p.limTok > 0 && int64(in) > p.limTok:
		w.emit(&obs{kind: obsBatch, id: r, ev: LogBatchRefuse})
		w.freeB = append(w.freeB, r)
	case p.held.Len() == 0 && p.fits(int64(in)):
		w.batchEnqueue(r)
	default:
		p.held.Push(r)
	}
}

// fits says whether a request of in input tokens may be enqueued now.
func (p *batchPool) fits(in int64) bool {
	return (p.limReq == 0 || p.enqReq+1 <= p.limReq) && (p.limTok == 0 || p.enqTok+in <= p.limTok)
}

// batchEnqueue puts a request in its pool and schedules its completion or
// expiry.
func (w *World) batchEnqueue(r int32) {
	b := &w.batchReqs[r]
	p := &w.batch[b.pool]
	b.enqueued = true
	p.enqReq++
	p.enqTok += int64(b.in)
	w.emit(&obs{kind: obsBatch, id: r, ev: LogBatchEnqueue})
	d := math.Exp(p.mu + p.sigma*p.rn.NormFloat64()) // seconds
	at := p.window
	if d*1e6 < float64(p.window) {
		at = max(FromSeconds(d), 1)
	} else {
		b.expires = true
	}
	w.eng.postAfter(at, evBatchDone, r)
}

// batchDone: a batch request completed or expired; held requests take the
// room it leaves.
func (w *World) batchDone(r int32) {
	b := &w.batchReqs[r]
	p := &w.batch[b.pool]
	p.enqReq--
	p.enqTok -= int64(b.in)
	if b.expires {
		w.emit(&obs{kind: obsBatch, id: r, ev: LogBatchExpire})
	} else {
		w.emit(&obs{kind: obsBatch, id: r, ev: LogBatchDone})
	}
	w.freeB = append(w.freeB, r)
	for p.held.Len() > 0 && p.fits(int64(w.batchReqs[*p.held.Peek()].in)) {
		w.batchEnqueue(p.held.Pop())
	}
}
