package sim

import (
	"github.com/evalsched/lab/internal/cacheline"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
)

// recorder keeps what a run measures apart from the state of the world:
// time integrals and counters per lane, production statistics, whole-run
// counts, the time series and the fairness bookkeeping (fairness.go). It
// observes what happened (observe, from World.emit) and turns that into
// the results package's input per series sample (rows) or at the end
// (lanes, production).
type recorder struct {
	eng              *Engine // the clock
	windowStart, end Time    // the measurement window
	fairWindow       Time
	names            []string // model names, catalogue order
	lanes            []laneMeter
	prod             []prodMeter
	counts           Counts
	// rows receives series.csv and batches.csv rows as they are made
	// (default: a results.MemoryRows); limits keeps the series rows that
	// carry a limit, which Convergence reads, when rows does not keep them.
	rows     results.RowSink
	mem      *results.MemoryRows // rows, when it is the default
	interval Time                // series_interval
	samples  int32               // series samples taken so far
	fair     fairness
	// ids is the world's identity table, read for batch names; the
	// recorder never writes it.
	ids   *identity
	quota quotaMeter
	// blind turns the fairness bookkeeping off (tests: a run's decisions
	// must not change with what is measured).
	blind bool
	// prices are each model's token prices in dollars per token (input,
	// cache write, cache read, output), when the run bills (nil: it does not).
	prices [][4]float64
	// lastFinish is the time the last evaluation job completed.
	lastFinish Time
}

// laneMeter is what is measured on one model over the window. Calls
// reach a model's meter at random, so its fields are in the order a call
// reads them, a cache line each (TestLaneMetersStartCacheLines): a try's
// and an answer's levels and counts; the job's gateway-only level and the
// rest of an answer's sums; the quota counts since the sample (which the
// sample reads with the 429s) with the job's level and counts. It is padded
// to whole lines, and cacheline.Slice starts the table on one.
type laneMeter struct {
	depth, busy         level
	queueEntries, calls int64
	gwOnly              level
	queueWaitSum        float64
	// tokens are those of the calls answered in the window: whole
	// numbers, summed exactly as an int64 (as a float64 they would be the
	// same below 2^53), read as a float64.
	tokens int64
	// The cache since the model's previous series row (whole run): input
	// and cache-read tokens of the evaluation calls answered, and their
	// misses by cause.
	cacheInSince, cacheReadSince    int64
	missGatewaySince, missToolSince int32
	// countedSince and realSince are the tokens the model's evaluation
	// calls counted in its organisation's quotas, and their real tokens,
	// since the model's previous series row (whole run).
	countedSince, realSince float64
	running                 level
	arrived, started        int64
	// rejectedSinceSample counts 429s (evaluation and production, whole
	// run) since the previous series row.
	rejectedSinceSample int32
	grading             bool // a grading job arrived on the model (whole run)
	completed           int64
	times               pages[results.JobTimes]
	streams             level // the provider's streams, after capacity events
	rejected429, errors int64
	failed              int64
	bill                results.TokenBill
	// limits are the model's series rows with a limit, as runs of
	// consecutive samples with one limit (with StreamRows), and the range
	// of those limits.
	limits           []limitRun
	limitLo, limitHi int32
	// conv holds, with StreamRows, what convergence reads of each sample
	// with a limit besides the limit itself.
	conv []convSample
	_    [40]byte
}

// convSample is what convergence reads of one series sample, kept with
// StreamRows.
type convSample struct{ depth, inflight, waiting, streams int32 }

// limitRun is n consecutive series samples from the k-th with one limit.
type limitRun struct{ k, n, limit int32 }

// prodMeter is one production stream's statistics over the whole run.
type prodMeter struct {
	arrived, answered, rejected429, rejectedOutage int64
	failed, failedMinutes                          int64
	latencySum                                     float64
	lastFailMinute                                 int64 // the last minute in which a call failed for good
	minutes                                        []minuteMeter
	closedMinutes                                  int // minutes[:closedMinutes] are closed
}

// level integrates a piecewise-constant quantity over the measurement window.
type level struct {
	v    int
	last Time
	area float64
}

// Counts are whole-run totals, for conservation checks.
type Counts struct {
	JobsArrived, JobsStarted, JobsCompleted  int64
	JobsFailed                               int64 // ended by a call that can never succeed
	CallsCreated, CallsAnswered, CallsFailed int64
	Tries, Rejected429, RejectedOutage       int64
}

func newRecorder(sc *scenario.Scenario, eng *Engine) recorder {
	names := sc.Catalogue()
	r := recorder{
		eng: eng, windowStart: FromDuration(sc.Warmup), end: FromDuration(sc.Duration),
		fairWindow: FromDuration(sc.FairnessWindow), names: names, interval: FromDuration(sc.SeriesInterval),
		lanes: cacheline.Slice[laneMeter](len(names)), prod: make([]prodMeter, len(sc.Production)),
		fair: newFairness(len(names)), quota: newQuotaMeter(sc),
	}
	if sc.Billing() {
		r.prices = make([][4]float64, len(names))
		for i := range names {
			p := sc.ModelPrices(i)
			r.prices[i] = [4]float64{p.Input / 1e6, p.CacheWrite / 1e6, p.CacheRead / 1e6, p.Output / 1e6}
		}
	}
	r.mem = &results.MemoryRows{}
	r.rows = r.mem
	for i := range r.prod {
		r.prod[i].lastFailMinute = -1
	}
	return r
}

func (r *recorder) now() Time      { return r.eng.Now() }
func (r *recorder) inWindow() bool { return r.now() >= r.windowStart }

// set changes a level's value, adding the time it held the old value within
// the window to its area.
func (r *recorder) set(l *level, v int) { r.setAt(l, v, r.now()) }

// setAt is set with the clock read by the caller.
func (r *recorder) setAt(l *level, v int, now Time) {
	if l.v != 0 {
		from := max(l.last, r.windowStart)
		to := min(now, r.end)
		if to > from {
			l.area += float64(l.v) * (to - from).Seconds()
		}
	}
	l.v, l.last = v, now
}

// flush brings every integral up to now (the end of the run).
func (r *recorder) flush() {
	for i := range r.lanes {
		m := &r.lanes[i]
		for _, l := range []*level{&m.depth, &m.busy, &m.running, &m.gwOnly, &m.streams} {
			r.set(l, l.v)
		}
	}
}

func (r *recorder) depth(model int32, v int)   { r.set(&r.lanes[model].depth, v) }
func (r *recorder) busy(model int32, v int)    { r.set(&r.lanes[model].busy, v) }
func (r *recorder) streams(model int32, v int) { r.set(&r.lanes[model].streams, v) }

// jobArrived records a job's arrival; fresh tells that its batch is new.
// A job's three handlers leave the fairness bookkeeping (which reads
// nothing they write) for last: a call that ends its caller keeps nothing
// live across it.

func (r *recorder) jobArrived(j *waitingJob, fresh bool) {
	now := r.now()
	in := now >= r.windowStart
	r.counts.JobsArrived++
	m := &r.lanes[j.model]
	if j.grading {
		m.grading = true
	}
	if in {
		m.arrived++
	}
	if !r.blind {
		r.fairArrive(j, fresh, now, in)
	}
}

func (r *recorder) jobStarted(j *jobState, running int) {
	now := r.now()
	in := now >= r.windowStart
	m := &r.lanes[j.model]
	r.setAt(&m.running, running, now)
	r.counts.JobsStarted++
	if in {
		m.started++
	}
	if !r.blind {
		r.fairStart(&j.waitingJob, now, in)
	}
}

// jobEnded records a job that left its container: completed (its job times
// kept when in the window), or failed; ended tells that its batch ended.
func (r *recorder) jobEnded(j *jobState, running int, ended bool) {
	now := r.now()
	m := &r.lanes[j.model]
	r.setAt(&m.running, running, now)
	if j.failed {
		// One of its calls could never succeed (larger than a quota
		// window's limit): it leaves its batch like a finished job but is
		// counted as failed, not completed, and adds no job times.
		r.counts.JobsFailed++
	} else {
		r.counts.JobsCompleted++
		r.lastFinish = now
		if now >= r.windowStart {
			m.completed++
			t := m.times.next()
			t.Queued = float32((j.admitted - j.arrival).Seconds())
			t.Start = float32((j.ready - j.admitted).Seconds())
			t.Gateway = float32(j.gateway.Seconds())
			t.LLM = float32(j.llm.Seconds())
			t.Tool = float32(j.tool.Seconds())
		}
	}
	if !r.blind {
		r.fairFinish(&j.waitingJob, ended, now)
	}
}

func (r *recorder) outage(cs *callState) {
	r.counts.RejectedOutage++
	if cs.kind == productionCall {
		r.prod[cs.owner].rejectedOutage++
	} else if r.inWindow() {
		r.lanes[cs.model].errors++
	}
}

func (r *recorder) rejected(cs *callState, burned bool) {
	r.counts.Rejected429++
	r.rejectedTry(cs, burned)
	m := &r.lanes[cs.model]
	m.rejectedSinceSample++
	if cs.kind == productionCall {
		r.prod[cs.owner].rejected429++
		r.prodMinute(cs.owner).rejected++
	} else if r.inWindow() {
		m.rejected429++
	}
}

// missed counts an answered evaluation call's cache miss of this cause.
func (r *recorder) missed(m *laneMeter, miss uint8) {
	switch miss {
	case cacheMissGateway:
		m.missGatewaySince++
	case cacheMissTool:
		m.missToolSince++
	}
}

// prodAnswered: the provider answered production call cs at now.
func (r *recorder) prodAnswered(cs *callState, now Time) {
	p := &r.prod[cs.owner]
	p.answered++
	lat := (now - cs.born).Seconds()
	p.latencySum += lat
	pm := r.prodMinute(cs.owner)
	pm.served++
	pm.latencies = append(pm.latencies, float32(lat))
}

// bill adds an answered call's tokens by class, their price and its cache
// miss to a lane's bill.
func (r *recorder) bill(b *results.TokenBill, cs *callState) {
	read, write := float64(cs.cacheRead), float64(cs.cacheWrite)
	uncached := float64(cs.in) - read - write
	out := float64(cs.out)
	p := &r.prices[cs.model]
	b.Uncached += uncached
	b.CacheWrite += write
	b.CacheRead += read
	b.Output += out
	b.Dollars += uncached*p[0] + write*p[1] + read*p[2] + out*p[3]
	switch cs.miss {
	case cacheMissGateway:
		b.CacheMissGateway++
	case cacheMissTool:
		b.CacheMissTool++
	}
}

func (r *recorder) failed(cs *callState) {
	r.counts.CallsFailed++
	if cs.kind == productionCall {
		p := &r.prod[cs.owner]
		p.failed++
		r.prodMinute(cs.owner).failed++
		if minute := int64(r.now() / Minute); minute != p.lastFailMinute {
			p.lastFailMinute = minute
			p.failedMinutes++
		}
	} else if r.inWindow() {
		r.lanes[cs.model].failed++
	}
}

// sample appends one time-series row per model with anything going on.
func (w *World) sample() {
	now := w.now()
	// The tables in locals of one length: the loop then reads them without
	// loading them again or checking bounds at every model.
	meters := w.rec.lanes
	load, models := w.load[:len(meters)], w.prov.models[:len(meters)]
	for i := range meters {
		m, model := &meters[i], int32(i)
		depth := w.gw.Depth(model)
		jobs, inflight := load[i], models[i].inflight
		busy := jobs.running != 0 || depth != 0 || inflight != 0 || jobs.waiting != 0 || m.rejectedSinceSample != 0
		if busy || m.countedSince != 0 || m.realSince != 0 {
			w.sampleRow(i, now, busy)
		} // else the cache counts carry to the model's next row
	}
	w.emit(&obs{kind: obsSample})
	w.rec.fairSample(now+FromDuration(w.sc.SeriesInterval) > w.rec.end)
	w.rec.samples++
	if w.opts.Progress != nil {
		w.opts.Progress(now, w.rec.end)
	}
}

// sampleTail writes, at the run's end, a row for each model whose
// evaluation calls counted tokens after its last row (calls ended between
// the last sample and the end, or at the end after it), so that a run's
// rows add up to its whole-run quota telemetry (I14).
func (w *World) sampleTail() {
	for i := range w.rec.lanes {
		if m := &w.rec.lanes[i]; m.countedSince != 0 || m.realSince != 0 {
			w.sampleRow(i, w.rec.end, false)
		}
	}
}

// sampleRow writes model i's series row at now and starts its counts
// since the row afresh. A row that is not busy (the tail, or a model with
// nothing going on that only counted tokens since its previous row) is
// written for its tokens and left out of convergence, which measures the
// samples of models with something going on.
func (w *World) sampleRow(i int, now Time, busy bool) {
	m, model := &w.rec.lanes[i], int32(i)
	jobs, depth, inflight := w.load[i], w.gw.Depth(model), w.prov.models[i].inflight
	use := w.prov.quotaUse(model, now)
	t := now.Seconds()
	row := results.SeriesRow{
		T: t, Model: model, Running: int32(jobs.running), Limit: int32(w.limits[i]),
		Depth: int32(depth), Inflight: int32(inflight), Waiting: int32(jobs.waiting),
		Rejected429: int32(m.rejectedSinceSample), QuotaUse: float32(use), Backoff: int32(w.gw.Backoff(model)),
		Streams:          int32(w.prov.models[i].streams),
		CacheMissGateway: m.missGatewaySince, CacheMissTool: m.missToolSince,
		CountedTokens: m.countedSince, RealTokens: m.realSince, TokensOnly: !busy,
	}
	if m.cacheInSince > 0 {
		row.CacheReadShare = float32(float64(m.cacheReadSince) / float64(m.cacheInSince))
	}
	w.rec.rows.SeriesRow(row)
	if busy && w.rec.mem == nil && row.Limit != results.NoLimit {
		m.keepLimit(w.rec.samples, row.Limit)
		m.conv = append(m.conv, convSample{row.Depth, row.Inflight, row.Waiting, row.Streams})
	}
	m.rejectedSinceSample = 0
	m.cacheInSince, m.cacheReadSince, m.missGatewaySince, m.missToolSince = 0, 0, 0, 0
	m.countedSince, m.realSince = 0, 0
}
