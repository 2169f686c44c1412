package sim

import (
	"math"

	"github.com/evalsched/lab/internal/cacheline"
	"github.com/evalsched/lab/internal/fastmath"
	"github.com/evalsched/lab/internal/ring"
	"github.com/evalsched/lab/scenario"
	"gonum.org/v1/gonum/mathext"
)

// Provider is the model deployments behind the gateway: per model its
// streams (after capacity events), the calls it has accepted (in service or
// waiting for a stream) and its latency model, plus the organisations'
// rolling-window quotas (quota.go) that every try is checked against.
type Provider struct {
	models []deployment
	orgs   []quotaPool
	rules  []orgRules  // per organisation: what a try costs, the cache
	keys   []quotaPool // gateway virtual keys, checked before the org pool
	pace   []bool      // per key: hold calls instead of rejecting them
	// keyAtEnd: per key, tokens are counted when a call ends (the request
	// at admission), as a limiter that adds usage after the call does.
	keyAtEnd []bool
	// lastProd is, per organisation, when production last tried (for a
	// reservation's borrowing); noTry before its first.
	lastProd []Time
}

// noTry is the lastProd of an organisation production has not tried yet.
const noTry Time = -1 << 62

// deployment is one model's provider. Its fields are in the order a call
// reads them, a cache line each: the streams (every accept, start and
// answer), the latency terms (every call made and started), then the
// quotas' indices and the prompt cache's terms (every try); the record is
// padded to four lines and the deployments start on one (cacheline.Slice,
// TestDeploymentsStartCacheLines).
type deployment struct {
	inflight int              // accepted, in service or waiting for a stream
	busy     int              // streams in service
	streams  int              // current, after capacity events
	waiting  ring.Ring[int32] // accepted calls waiting for a stream

	latFactor float64
	// ttft and decodeRate are cfg.TTFT in seconds and cfg.DecodeRate,
	// read for every call's base latency.
	ttft, decodeRate float64
	// The slowdown under load (cfg.Slowdown), read as each call starts
	// (start): slows is !(Max <= 1) (else its factor is 1); knee, 1 − knee,
	// Max − 1 and the configured streams, the terms of its factor, are
	// computed once here.
	knee, kneeRest, excess, streamsF float64
	slows                            bool
	// caches: evaluation calls bill to an organisation with a prompt
	// cache; settles: an organisation of the model counts output when a
	// call is answered (at_end, or max_tokens given back). Read on every
	// try and answer, so a scenario without them skips the calls.
	caches, settles bool
	// paces: evaluation calls go through a pacing key or an organisation
	// reserving a share for production (read on every dispatch; fixed
	// for the run).
	paces bool
	// cacheMin and cacheLife are the model's minimum cacheable prompt and
	// prompt-cache lifetime (its own, else its organisation's).
	cacheMin int32

	jit       latencyJitter // cfg.Jitter, compiled once
	org       int           // production calls' organisation; -1: no quotas
	evalOrg   int           // evaluation calls' organisation; -1: no quotas
	key       int           // evaluation calls' virtual key; -1: none
	cacheLife Time
	cfg       *scenario.ModelConfig
	_         [64]byte
}

// verdict is the provider's answer to one try of a call.
type verdict uint8

const (
	accepted verdict = iota
	rejectedOutage
	rejected429
	rejectedKey // by the gateway, on the call's virtual key
)

func newProvider(sc *scenario.Scenario, cfgs []scenario.ModelConfig) Provider {
	var p Provider
	orgIndex, keyIndex := map[string]int{}, map[string]int{}
	for i := range sc.Organisations {
		o := &sc.Organisations[i]
		orgIndex[o.Name] = i
		r := newOrgRules(o)
		spec := poolSpec{limits: o.Limits(), countRejected: o.CountsRejected(), dailyReset: o.DailyReset, clock: sc.Clock, underLimit: scenario.UnderLimit(o.Admission), models: len(cfgs),
			split: o.ITPM > 0 || o.OTPM > 0 || atEndRule(r.output)}
		for d := range spec.meters {
			spec.meters[d] = o.Meter(d)
			spec.burst[d] = o.BurstOf(d)
		}
		pool := newQuotaPool(spec)
		pool.accel = newAccelLimit(o.Acceleration)
		pool.seedHistory(o.History, sc.Clock)
		p.orgs = append(p.orgs, pool)
		p.rules = append(p.rules, r)
		p.lastProd = append(p.lastProd, noTry)
	}
	for i, k := range sc.Keys {
		keyIndex[k.Name] = i
		p.keys = append(p.keys, newQuotaPool(poolSpec{limits: k.Limits(), budget: k.BudgetTokens, underLimit: scenario.UnderLimit(k.Admission), models: len(cfgs),
			split: k.AtEnd()}))
		p.pace = append(p.pace, k.Pace)
		p.keyAtEnd = append(p.keyAtEnd, k.AtEnd())
	}
	index := func(m map[string]int, name string) int {
		if i, ok := m[name]; ok {
			return i
		}
		return -1
	}
	p.models = cacheline.Slice[deployment](len(cfgs))
	for i := range cfgs {
		d := &p.models[i]
		d.cfg = &cfgs[i]
		d.org = index(orgIndex, d.cfg.Org)
		d.evalOrg = d.org
		if d.cfg.EvalOrg != "" {
			d.evalOrg = index(orgIndex, d.cfg.EvalOrg)
		}
		d.key = index(keyIndex, d.cfg.EvalKey)
		d.streams = d.cfg.Streams
		d.latFactor = 1
		d.jit = compileJitter(d.cfg.Jitter)
		d.caches = d.evalOrg >= 0 && p.rules[d.evalOrg].cache
		d.settles = d.key >= 0 && p.keyAtEnd[d.key]
		if d.caches {
			r := &p.rules[d.evalOrg]
			d.cacheLife, d.cacheMin = r.lifetime, r.minTokens
			if c := d.cfg.Cache; c != nil {
				if c.Lifetime > 0 {
					d.cacheLife = FromDuration(c.Lifetime)
				}
				if c.MinTokens != nil {
					d.cacheMin = int32(*c.MinTokens)
				}
			}
		}
		for _, org := range []int{d.org, d.evalOrg} {
			if org >= 0 {
				out := p.rules[org].output
				d.settles = d.settles || atEndRule(out) || out == scenario.OutputReconciled
			}
		}
		d.paces = d.key >= 0 && p.pace[d.key] || d.evalOrg >= 0 && p.rules[d.evalOrg].reserve > 0
		d.ttft, d.decodeRate = d.cfg.TTFT.Seconds(), d.cfg.DecodeRate
		sd := d.cfg.Slowdown
		d.slows = !(sd.Max <= 1)
		d.knee, d.kneeRest, d.excess, d.streamsF = sd.Knee, 1-sd.Knee, sd.Max-1, float64(d.cfg.Streams)
	}
	return p
}

// orgRules is what a try costs in an organisation's quotas and how its
// prompt cache behaves (scenario meters.go), read once.
type orgRules struct {
	input         scenario.InputCount
	output        scenario.OutputCount
	cache         bool
	lifetime      Time
	writeF, readF float64
	minTokens     int32 // a shorter prompt is not cached
	// reserve is production's reserved share of every quota (0: none);
	// with borrow, evaluation uses it while production has made no try
	// for idle.
	reserve float64
	borrow  bool
	idle    Time
}

func newOrgRules(o *scenario.OrgConfig) orgRules {
	r := orgRules{input: o.InputRule(), output: o.OutputRule(), cache: o.Cache.On()}
	if r.cache {
		r.lifetime, r.writeF, r.readF = FromDuration(o.Cache.Lifetime), o.Cache.Write(), o.Cache.Read()
		r.minTokens = int32(o.Cache.Min())
	}
	if v := o.Reserve; v != nil {
		r.reserve, r.borrow, r.idle = v.Production, v.Borrow, FromDuration(v.Idle)
		if v.Idle == 0 {
			r.idle = FromDuration(scenario.DefaultReserveIdle)
		}
	}
	return r
}

// atEnd says whether an organisation counts output when a call ends
// (at_end, and as_produced, which the lab counts then).
func atEndRule(o scenario.OutputCount) bool {
	return o == scenario.OutputAtEnd || o == scenario.OutputProduced
}

// callTokens is a call's tokens as the provider sees them: its input (of
// which cacheRead read from the prompt cache), its real output and the
// max_tokens it asks for (0: none).
type callTokens struct{ in, cacheRead, out, maxOut int32 }

// cost is what a try of t counts in quotas of these rules at admission.
func (r *orgRules) cost(t callTokens) tryCost {
	in := float64(t.in)
	if r.input == scenario.InputUncached {
		in -= float64(t.cacheRead)
	}
	var out float64
	switch r.output {
	case scenario.OutputActual:
		out = float64(t.out)
	case scenario.OutputMaxTokens, scenario.OutputReconciled:
		out = float64(t.out)
		if t.maxOut > 0 {
			out = float64(t.maxOut)
		}
	}
	return tryCost{in: in, out: out}
}

// offer checks one try of a call on model against its capacity, the
// virtual key of an evaluation call (at the gateway, which counts input +
// output) and then its organisation's quotas (which count what its rules
// say, cost); an accepted try is counted in the key's and the
// organisation's windows. A 429 comes with the retry-after at which the
// try would fit (negative: never, it is larger than a quota); burned says
// a rejected try was counted against the request windows anyway; counted
// is what an accepted try counted in its organisation's windows (input and
// output, 0 without one). d is model's deployment, which the caller holds.
func (p *Provider) offer(d *deployment, model int32, now Time, t callTokens, src source) (v verdict, retryAfter Time, burned bool, counted float64) {
	tokens := float64(t.in) + float64(t.out)
	key := -1
	if src == srcEval {
		key = d.key
	}
	if key >= 0 {
		if retryAfter = p.keys[key].check(now, p.keyTokens(key, tokens)); retryAfter != 0 {
			return rejectedKey, retryAfter, false, 0
		}
	}
	if d.streams == 0 {
		return rejectedOutage, 0, false, 0
	}
	who := int32(-1) // the model whose own use an entry is
	if src == srcEval {
		who = model
	}
	if org := d.orgOf(src); org >= 0 {
		if src == srcProd {
			p.lastProd[org] = now
		}
		var ok bool
		c := p.rules[org].cost(t)
		if retryAfter, ok = p.orgs[org].admitCost(now, c, src, who); !ok {
			return rejected429, retryAfter, p.orgs[org].burn(now, src, who), 0
		}
		counted = c.in + c.out
	}
	if key >= 0 {
		p.keys[key].commit(now, p.keyTokens(key, tokens), src, who)
	}
	return accepted, 0, false, counted
}

// keyTokens is what key counts of a call of tokens at admission: all of
// them, or none when it counts them as the call ends.
func (p *Provider) keyTokens(key int, tokens float64) float64 {
	if p.keyAtEnd[key] {
		return 0
	}
	return tokens
}

// keyAnswered counts an answered evaluation call's tokens in its key, if
// the key counts them when calls end.
func (p *Provider) keyAnswered(model int32, now Time, t callTokens, src source) {
	if d := &p.models[model]; src == srcEval && d.key >= 0 && p.keyAtEnd[d.key] {
		k := &p.keys[d.key]
		k.expire(now)
		k.spent += float64(t.in) + float64(t.out)
		k.push(newTry(now, float64(t.in)+float64(t.out), src, model, entryOut))
	}
}

// answered settles an answered call's output with its organisation:
// counted now (output: at_end, as_produced), or what was counted at
// admission beyond the real output given back (max_tokens_reconciled). It
// returns the change to what the organisation counted.
func (p *Provider) answered(model int32, now Time, t callTokens, src source) float64 {
	p.keyAnswered(model, now, t, src)
	org := p.models[model].orgOf(src)
	if org < 0 {
		return 0
	}
	switch p.rules[org].output {
	case scenario.OutputAtEnd, scenario.OutputProduced:
		who := int32(-1)
		if src == srcEval {
			who = model
		}
		p.orgs[org].countOutput(now, float64(t.out), src, who)
		return float64(t.out)
	case scenario.OutputReconciled:
		if t.maxOut > t.out {
			p.orgs[org].giveBack(now, float64(t.maxOut-t.out))
			return -float64(t.maxOut - t.out)
		}
	}
	return 0
}

// orgOf is the organisation a call from src bills to on this deployment.
func (d *deployment) orgOf(src source) int {
	if src == srcEval {
		return d.evalOrg
	}
	return d.org
}

// paceWait is how long an evaluation call of t on model must be held at the
// gateway by its pacing key and its organisation's reservation for
// production, for a model that paces (0: send it now; a call that can
// never fit is sent, to be refused).
func (p *Provider) paceWait(model int32, now Time, t callTokens) Time {
	d := &p.models[model]
	var wait Time
	if k := d.key; k >= 0 && p.pace[k] {
		wait = max(p.keys[k].check(now, p.keyTokens(k, float64(t.in)+float64(t.out))), 0)
	}
	if org := d.evalOrg; org >= 0 && p.rules[org].reserve > 0 {
		r := &p.rules[org]
		if !(r.borrow && now-p.lastProd[org] >= r.idle) {
			wait = max(wait, p.orgs[org].reserveWait(now, r.cost(t), r.reserve))
		}
	}
	return wait
}

// accept takes an accepted call: true if a stream is free to serve it now,
// else it waits for one.
func (d *deployment) accept(c int32) bool {
	d.inflight++
	if d.busy < d.streams {
		return true
	}
	d.wait(c)
	return false
}

// wait queues an accepted call for a stream: out of accept, whose common
// step (a free stream) is then small enough to be inlined.
//
//go:noinline
func (d *deployment) wait(c int32) { d.waiting.Push(c) }

// next is the accepted call that waited longest, if a stream is free for it.
func (p *Provider) next(model int32) (int32, bool) {
	d := &p.models[model]
	if d.waiting.Len() == 0 || d.busy >= d.streams {
		return 0, false
	}
	return d.waiting.Pop(), true
}

// base is the unloaded latency in seconds of a call on the deployment with
// out output tokens: time to first token plus decoding.
func (d *deployment) base(out int) float64 {
	return d.ttft + float64(out)/d.decodeRate
}

// start puts a call of unloaded latency base and latency factor jitter (see
// deployment.base and latencyJitter.factor) on a stream of deployment d (its
// caller holds it) and returns how long it takes to answer, slowed by the
// load and the model's capacity events.
func (p *Provider) start(d *deployment, base, jitter float64) Time {
	d.busy++
	lat := base * d.latFactor
	// The slowdown factor 1 + (Max − 1) · min(1, (util − knee) / (1 −
	// knee)) past the knee; where it is 1 (no slowdown, or a load at or
	// below the knee), x × 1 is x: the multiplication is skipped.
	if d.slows {
		if util := float64(d.busy) / d.streamsF; !(util <= d.knee) {
			lat *= 1 + d.excess*min(1, (util-d.knee)/d.kneeRest)
		}
	}
	lat *= jitter
	// FromSeconds(min(lat, maxLatencySeconds)), capped by a compare (min
	// for every lat, a NaN kept, without min's NaN and sign handling) and
	// rounded without math.Round's bit work: a non-negative x = lat·Second
	// is at most 1e16, so its truncation t and x − t are exact, and x
	// rounds half away from zero to t, or t+1 when x − t is at least a half.
	if lat > maxLatencySeconds {
		lat = maxLatencySeconds
	}
	x := lat * float64(Second)
	if !(x >= 0) {
		return FromSeconds(lat) // a negative latency, or NaN
	}
	t := Time(x)
	if x-float64(t) >= 0.5 {
		t++
	}
	return t
}

// maxLatencySeconds caps one call's latency (about 317 years): far past any
// run's end, and far from overflowing the clock.
const maxLatencySeconds = 1e10

// done frees the stream of an answered call.
func (d *deployment) done() {
	d.busy--
	d.inflight--
}

// apply applies a capacity event: streams and latency against the
// configured deployment.
func (d *deployment) apply(e scenario.CapacityEvent) {
	if e.Capacity != nil {
		d.streams = int(math.Floor(float64(d.cfg.Streams) * *e.Capacity))
	}
	if e.Latency != nil {
		d.latFactor = *e.Latency
	}
}

// quotaUse is the fullest of the model's organisation's quota windows as a
// share of its limit, 0 without quotas.
func (p *Provider) quotaUse(model int32, now Time) float64 {
	if d := &p.models[model]; d.evalOrg >= 0 {
		return p.orgs[d.evalOrg].use(now)
	}
	return 0
}

// latencyJitter is a JitterConfig compiled once per model: its kind and,
// for lognormal, the parameters (σ = √log(1+CV²), μ = −σ²/2, mean 1), so
// a call's draw does no string compare or square root.
type latencyJitter struct {
	kind      uint8 // jitterNone, jitterExponential, jitterLognormal
	mu, sigma float64
}

const (
	jitterNone uint8 = iota
	jitterExponential
	jitterLognormal
)

func compileJitter(j scenario.JitterConfig) latencyJitter {
	switch j.Dist {
	case scenario.JitterExponential:
		return latencyJitter{kind: jitterExponential}
	case scenario.JitterLognormal:
		sigma := math.Sqrt(math.Log1p(j.CV * j.CV))
		return latencyJitter{kind: jitterLognormal, mu: -sigma * sigma / 2, sigma: sigma}
	}
	return latencyJitter{}
}

// factor turns a uniform draw into a latency factor of mean 1.
func (j *latencyJitter) factor(u float64) float64 {
	// Clamp to [1e-12, 1−1e-12] by compares: as min(max(u, …), …) for
	// every u (a NaN stays NaN, −0 becomes 1e-12), in fewer instructions.
	if u < 1e-12 {
		u = 1e-12
	} else if u > 1-1e-12 {
		u = 1 - 1e-12
	}
	switch j.kind {
	case jitterExponential:
		// The inverse CDF −log(1−u), with fastmath.Log (a call's draw;
		// math.Log1p costs more). 1−u is exact for u ≥ ½ and within an ulp
		// of 1 above; below 2^-7, where that ulp would be a large share
		// of a small log, Log1p.
		if u < 1.0/128 {
			return -math.Log1p(-u)
		}
		return -fastmath.Log(1 - u)
	case jitterLognormal:
		return fastmath.Exp(j.mu + j.sigma*mathext.NormalQuantile(u))
	}
	return 1
}
