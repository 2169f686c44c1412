package sim

import (
	"slices"

	"github.com/evalsched/lab/internal/quantile"
	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
)

// quotaMeter is what the recorder measures of quotas: retry burn and
// every workload's use of each organisation's and key's quotas over the
// whole run (telemetry). The quota signals a policy reads are the
// gateway's (signals.go).
type quotaMeter struct {
	// use[w][o] is workload w's requests and tokens counted by org o
	// (w = 0: evaluation jobs, 1+i: production stream i), in the meter's
	// units: tokens as the organisation's rules count them (input per
	// input:, output at admission and when calls end per output:), and the
	// same calls' real tokens (input + output): one row a try, one bounds
	// check. keyUse[k] is the evaluation calls counted by virtual key k
	// (input + real output).
	use    [][][3]float64
	keyUse [][2]float64
	// evalUse is use[0] (the same array), one look-up nearer for the
	// evaluation calls' tries.
	evalUse [][3]float64
	// burned counts rejected tries counted against request windows, per
	// workload; keyRejected counts tries refused by a virtual key.
	burned      []int64
	keyRejected int64
	// byOrg[o] is the models whose evaluation calls bill to organisation
	// o, in catalogue order (World.orgPeers), once asked for.
	byOrg [][]int32
}

func newQuotaMeter(sc *scenario.Scenario) quotaMeter {
	q := quotaMeter{keyUse: make([][2]float64, len(sc.Keys)),
		burned: make([]int64, 1+len(sc.Production))}
	q.use = make([][][3]float64, 1+len(sc.Production))
	for i := range q.use {
		q.use[i] = make([][3]float64, len(sc.Organisations))
	}
	q.evalUse = q.use[0]
	return q
}

// workload is the telemetry index of a call's owner.
func workloadOf(cs *callState) int {
	if cs.kind == productionCall {
		return 1 + int(cs.owner)
	}
	return 0
}

func (r *recorder) rejectedTry(cs *callState, burned bool) {
	if burned {
		r.quota.burned[workloadOf(cs)]++
	}
}

// keyRejected: a try refused at the gateway by the call's virtual key. It
// is a 429 for the lane too.
func (r *recorder) keyRejected(cs *callState) {
	r.quota.keyRejected++
	r.rejected(cs, false)
}

// acceptedTry: an accepted try counted counted tokens in org's quotas; it
// goes to the telemetry of org (and key), and an evaluation call's to its
// model's next series row (m, its meter).
func (r *recorder) acceptedTry(cs *callState, m *laneMeter, org int, key int, counted float64) {
	if org < 0 && key < 0 {
		return // counted nowhere
	}
	tokens := float64(int64(cs.in) + int64(cs.out)) // float64(cs.in) + float64(cs.out), one conversion
	if cs.kind == productionCall {
		if org >= 0 {
			w := 1 + int(cs.owner)
			u := &r.quota.use[w][org]
			u[0]++
			u[1] += counted
			u[2] += tokens
		}
		return
	}
	if org >= 0 {
		u := &r.quota.evalUse[org]
		u[0]++
		u[1] += counted
		u[2] += tokens
		m.countedSince += counted
		m.realSince += tokens
	}
	if key >= 0 {
		r.quota.keyUse[key][0]++
		r.quota.keyUse[key][1] += tokens
	}
}

// Quota implements policies.QuotaState: the model's tries and 429s
// between the two previous decisions (the gateway's closed signal window),
// and its quota windows' use now.
func (w *World) Quota(m policies.ModelID) policies.QuotaReading {
	model := int32(m)
	win := w.gw.closed(model)
	q := policies.QuotaReading{Tries: win.tries, Rejected: win.rejected,
		AsOf: Epoch.Add(w.now().Duration())}
	d := &w.prov.models[model]
	if d.evalOrg >= 0 {
		pool := &w.prov.orgs[d.evalOrg]
		q.Use, q.ModelUse = foldPair(pool.dimAll(w.now()), pool.modelUse(w.now(), model))
		q.BelowShare = belowShare(w.Running(m), w.orgPeers(m))
	}
	if d.org >= 0 {
		_, prod := w.prov.orgs[d.org].dimUse(w.now(), srcProd)
		q.ProductionUse = policyDims(prod)
	}
	return q
}

// policyDims folds the scenario's quota dimensions into the ones a policy
// reads: input and output tokens per minute count as tokens per minute
// (the fullest of the three).
func policyDims(a [scenario.NumDims]float64) (b [policies.NumDims]float64) {
	b[policies.DimRPM] = a[scenario.DimRPM]
	b[policies.DimTPM] = max(a[scenario.DimTPM], a[scenario.DimITPM], a[scenario.DimOTPM])
	b[policies.DimRPD] = a[scenario.DimRPD]
	b[policies.DimTPD] = a[scenario.DimTPD]
	return b
}

// foldPair folds a window's use and the model's own share of it into the
// policy's dimensions as policyDims does, but as a pair: TPM reads the
// token window (TPM, ITPM or OTPM) the fullest, and the model's share of
// that same window, so that a rule adding one to the other compares like
// with like (the fullest use and the largest share may be of different
// windows).
func foldPair(use, own [scenario.NumDims]float64) (u, m [policies.NumDims]float64) {
	u, m = policyDims(use), policyDims(own)
	best := scenario.DimTPM
	for _, d := range []int{scenario.DimITPM, scenario.DimOTPM} {
		if use[d] > use[best] || use[d] == use[best] && own[d] > own[best] {
			best = d
		}
	}
	u[policies.DimTPM], m[policies.DimTPM] = use[best], own[best]
	return u, m
}

// Rejections implements policies.QuotaState: the model's 429s since the
// policy last decided that it answers for. The models of one organisation
// share its quotas, so a 429 there says the organisation is full, not which
// model filled it: a model holding at least its share of the running jobs
// of the organisation's models with tries since the last decision (their
// mean) answers for all its 429s; one below that share answers for at most
// one (it is being rejected, so it is not raised, but it is not lowered to
// make room the others would take). A model alone on its organisation, or
// with none, answers for all.
//
// Policies ask this of every model at every decision, and most have at
// most one 429: that answer is taken here, the share rule out of line.
func (w *World) Rejections(m policies.ModelID) int {
	n := w.gw.closedRejected(int32(m))
	if n > 1 {
		return w.sharedRejections(m, n)
	}
	return n
}

// sharedRejections is Rejections of m's n > 1 429s.
func (w *World) sharedRejections(m policies.ModelID, n int) int {
	if w.prov.models[m].evalOrg < 0 {
		return n
	}
	return answerable(n, w.Running(m), w.orgPeers(m))
}

// orgPeers is the running jobs of the models with tries since the last
// decision on m's evaluation organisation (m included), in a buffer reused
// until the next call.
func (w *World) orgPeers(m policies.ModelID) []int {
	peers := w.peers[:0]
	for _, j := range w.orgModels(w.prov.models[m].evalOrg) {
		if w.gw.closed(j).tries > 0 {
			peers = append(peers, w.Running(policies.ModelID(j)))
		}
	}
	w.peers = peers
	return peers
}

// orgModels is the models whose evaluation calls bill to org (quotaMeter.byOrg).
func (w *World) orgModels(org int) []int32 {
	q := &w.rec.quota
	if q.byOrg == nil {
		q.byOrg = make([][]int32, len(w.prov.orgs))
		for j := range w.prov.models {
			if o := w.prov.models[j].evalOrg; o >= 0 {
				q.byOrg[o] = append(q.byOrg[o], int32(j))
			}
		}
	}
	return q.byOrg[org]
}

// answerable is the share rule of Rejections: n 429s of a model running
// own jobs, among peers (the running jobs of every model with tries on the
// same organisation, the model's included).
func answerable(n, own int, peers []int) int {
	if n <= 1 || !belowShare(own, peers) {
		return n
	}
	return 1
}

// belowShare says whether own running jobs are below the mean of peers
// (never for a model alone).
func belowShare(own int, peers []int) bool {
	total := 0
	for _, r := range peers {
		total += r
	}
	return len(peers) > 1 && own*len(peers) < total
}

// settled: an answered call's output settled with org counted delta more
// tokens (at_end, as_produced: its output; reconciled: minus what was
// given back).
func (r *recorder) settled(cs *callState, org int, delta float64) {
	if org >= 0 {
		r.quota.use[workloadOf(cs)][org][1] += delta
		if cs.kind == jobCall {
			r.lanes[cs.model].countedSince += delta
		}
	}
}

// QuotaUsage is the run's quota telemetry: per workload, organisation or
// key, and daily dimension with a quota, N used of M in the quota's units
// (what it counted), with the real tokens beside a token quota's.
func (w *World) QuotaUsage() []results.QuotaUse {
	var out []results.QuotaUse
	add := func(workload, org, key string, used [2]float64, real float64, pool *quotaPool) {
		for _, d := range []int{scenario.DimRPD, scenario.DimTPD} {
			if m := pool.limit(d); m > 0 {
				u := results.QuotaUse{Workload: workload, Org: org, Key: key, Dimension: scenario.DimNames[d],
					Used: used[d-scenario.DimRPD], Quota: m, Share: used[d-scenario.DimRPD] / m}
				if d == scenario.DimTPD {
					u.RealTokens = real
				}
				out = append(out, u)
			}
		}
	}
	for wi, orgs := range w.rec.quota.use {
		name := results.EvaluationWorkload
		if wi > 0 {
			name = w.sc.Production[wi-1].Name
		}
		for oi := range orgs {
			u := [2]float64{orgs[oi][0], orgs[oi][1]}
			if wi < len(w.rec.quota.burned) {
				u[0] += float64(w.rec.quota.burned[wi]) * boolTo(w.prov.orgs[oi].countRejected)
			}
			if u != [2]float64{} {
				add(name, w.sc.Organisations[oi].Name, "", u, orgs[oi][2], &w.prov.orgs[oi])
			}
		}
	}
	for ki := range w.rec.quota.keyUse {
		add(results.EvaluationWorkload, "", w.sc.Keys[ki].Name, w.rec.quota.keyUse[ki], w.rec.quota.keyUse[ki][1], &w.prov.keys[ki])
	}
	return out
}

func boolTo(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// minuteMeter is one minute of one production stream.
type minuteMeter struct {
	served, rejected, failed int32
	latencies                []float32 // of the calls answered in the minute, until it closes
	p50, p99                 float32   // their quantiles, once it has closed
}

// close reduces a past minute's latencies to their quantiles: a week of
// production keeps two numbers a minute, not every call's latency. Closing
// again changes nothing (no latencies are left to read).
func (m *minuteMeter) close() {
	if len(m.latencies) > 0 {
		slices.Sort(m.latencies)
		m.p50 = m.latencies[quantile.Rank(len(m.latencies), 0.5)]
		m.p99 = m.latencies[quantile.Rank(len(m.latencies), 0.99)]
	}
	m.latencies = nil
}

// prodMinute is the current minute's meter of production stream i; the
// minutes before it are closed (nothing is recorded in the past).
func (r *recorder) prodMinute(i int32) *minuteMeter {
	p := &r.prod[i]
	k := int(r.now() / Minute)
	for ; p.closedMinutes < k && p.closedMinutes < len(p.minutes); p.closedMinutes++ {
		p.minutes[p.closedMinutes].close()
	}
	if k >= len(p.minutes) {
		p.minutes = slices.Grow(p.minutes, k+1-len(p.minutes))[:k+1]
	}
	return &p.minutes[k]
}

// productionMinutes turns a stream's minute meters into rows, and counts
// the outage minutes: minutes with calls ended whose success rate
// (answered ÷ answered + failed) is below threshold.
func productionMinutes(ms []minuteMeter, threshold float64) ([]results.ProductionMinute, int64) {
	out := make([]results.ProductionMinute, 0, len(ms))
	var outage int64
	for k := range ms {
		m := &ms[k]
		row := results.ProductionMinute{Minute: k, Served: int64(m.served), Rejected429: int64(m.rejected), Failed: int64(m.failed)}
		if n := m.served + m.failed; n > 0 && float64(m.served)/float64(n) < threshold {
			row.Outage = true
			outage++
		}
		m.close()
		row.LatencyP50, row.LatencyP99 = float64(m.p50), float64(m.p99)
		out = append(out, row)
	}
	return out, outage
}

// quotaRun is the run's retry burn and key figures, for scenarios with
// production traffic or virtual keys (nil otherwise).
func (w *World) quotaRun() *results.QuotaRun {
	if len(w.sc.Production) == 0 && len(w.sc.Keys) == 0 {
		return nil
	}
	q := &results.QuotaRun{BurnedEval: w.rec.quota.burned[0], KeyRejected: w.rec.quota.keyRejected,
		EvalLastFinish: w.rec.lastFinish.Seconds(), Clock: w.sc.Clock.Seconds()}
	for _, b := range w.rec.quota.burned[1:] {
		q.BurnedProduction += b
	}
	for _, u := range w.rec.quota.use[0] {
		q.EvalTokens += u[1]
	}
	return q
}
