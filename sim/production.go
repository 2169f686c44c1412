package sim

import (
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/evalsched/lab/scenario"

	"github.com/evalsched/lab/workloads"
)

// productionStream is one replayed trace in a run: a source of calls of its
// own kind (productionCall), owned by the stream. Its statistics are kept by
// the recorder.
type productionStream struct {
	cfg    *scenario.ProductionConfig
	model  int32
	src    workloads.CallSource
	closer io.Closer
	next   workloads.Call
	rn     *rand.Rand // own backoff jitter (cfg.Retry set); nil: the gateway's
	// lat draws each call's latency variation (the model's jitter), from a
	// stream of the production's own, as evaluation calls' are drawn.
	lat *rand.Rand
}

func (p *productionStream) maxAttempts() int {
	if p.cfg.Retry != nil && p.cfg.Retry.MaxAttempts > 0 {
		return p.cfg.Retry.MaxAttempts
	}
	return p.cfg.MaxAttempts
}

// retryDelay is the stream's backoff: its own settings and jitter stream
// when it has them, else the gateway's.
func (p *productionStream) retryDelay(g *Gateway, attempts int32, retryAfter Time) Time {
	if p.rn == nil {
		return g.retryDelay(attempts, retryAfter)
	}
	return backoffDelay(p.cfg.Retry, p.rn, attempts, retryAfter)
}

// openProduction opens every production trace for a run.
func (w *World) openProduction() error {
	index := map[string]int32{}
	for i, m := range w.sc.Catalogue() {
		index[m] = int32(i)
	}
	for i := range w.sc.Production {
		p := &w.sc.Production[i]
		var src workloads.CallSource
		var closer io.Closer = io.NopCloser(nil)
		var err error
		if p.Generated() {
			src = workloads.NewCallGenerator(p.CallGen(), w.sc.Clock, w.sc.Duration, workloads.Stream(w.opts.Seed, "production/"+p.Name))
		} else if src, closer, err = workloads.OpenRequestTrace(p.Trace, p.Format, p.ReplayFilter(workloads.ReplayOptions{
			Speedup: p.Speedup, Loop: p.Loop, Offset: p.Offset, Horizon: w.sc.Duration})); err != nil {
			return fmt.Errorf("production %s: %w", p.Name, err)
		}
		ps := productionStream{cfg: p, model: index[p.Model], src: src, closer: closer,
			lat: rand.New(rand.NewPCG(workloads.Stream(w.opts.Seed, "production-latency/"+p.Name), 5))}
		if p.Retry != nil {
			ps.rn = rand.New(rand.NewPCG(workloads.Stream(w.opts.Seed, "production-retry/"+p.Name), 3))
		}
		w.prod = append(w.prod, ps)
		w.pullProduction(int32(i))
	}
	return nil
}

// closeProduction closes every production trace and returns the first
// trace error met during the run.
func (w *World) closeProduction() error {
	var first error
	for i := range w.prod {
		w.prod[i].closer.Close()
		if err := w.prod[i].src.Err(); err != nil && first == nil {
			first = fmt.Errorf("production %s: %w", w.prod[i].cfg.Name, err)
		}
	}
	return first
}

func (w *World) pullProduction(i int32) {
	p := &w.prod[i]
	call, ok := p.src.Next()
	if !ok {
		return
	}
	at := FromDuration(call.Arrival)
	if at < w.now() {
		at = w.now()
	}
	p.next = call
	w.eng.post(at, evProduction, i)
}

// productionArrival turns the stream's next request into a call sent
// straight to the provider: its latency variation drawn and its max_tokens
// (the record's, else the stream's) metered as an evaluation call's are,
// its output cut there.
func (w *World) productionArrival(i int32) {
	p := &w.prod[i]
	call := p.next
	w.pullProduction(i)
	maxOut := call.MaxTokens
	if maxOut == 0 {
		maxOut = p.cfg.MaxTokens
	}
	out := call.Out
	if maxOut > 0 {
		out = min(out, maxOut)
	}
	c := w.newCall(productionCall, i, p.model, call.In, out, maxOut, workloads.CallRecord{}, p.lat.Float64())
	w.emit(&obs{kind: obsProdArrived, id: i})
	w.emitCallMade(c, p.model, notQueued)
	w.send(c, notQueued)
}
