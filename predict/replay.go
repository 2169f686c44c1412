package predict

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/sim"
	"github.com/evalsched/lab/workloads"
)

// WhatIf changes what the replay runs under; the zero value replays the
// run as it was configured.
type WhatIf struct {
	MaxConnections int    // > 0: every pool's size
	MaxSamples     int    // > 0: each task's bound
	MaxTasks       int    // > 0: tasks at once
	Adaptive       bool   // adaptive connections on
	Policy         string // "": the harness (inspect); else a registered policy
	// Quota is a YAML flow mapping of organisation keys (rpm, tpm, itpm,
	// otpm, preset, ...) given to each provider's organisation; Prices
	// one of model prices (input, output, cache_read, cache_write, in
	// dollars per million tokens) given to every model.
	Quota, Prices string
}

func (w WhatIf) apply(h Harness) Harness {
	if w.MaxConnections > 0 {
		h.MaxConnections, h.Adaptive = w.MaxConnections, false
		if w.MaxSamples == 0 && !h.SamplesSet {
			h.MaxSamples = w.MaxConnections
		}
	}
	if w.MaxSamples > 0 {
		h.MaxSamples = w.MaxSamples
	}
	if w.MaxTasks > 0 {
		h.MaxTasks = w.MaxTasks
	}
	if w.Adaptive && !h.Adaptive {
		h.Adaptive, h.AdaptiveMin, h.AdaptiveMax = true, adaptiveMinNew, adaptiveMax
		if w.MaxConnections == 0 {
			h.MaxConnections = adaptiveStart
		}
		if w.MaxSamples == 0 && !h.SamplesSet {
			h.MaxSamples = adaptiveMax + adaptiveBuffer
		}
	}
	return h
}

// poolOf names a model's connection pool under the harness.
func poolOf(h Harness, model string) string {
	if h.PoolBy == "provider" {
		if i := strings.IndexByte(model, '/'); i > 0 {
			return model[:i]
		}
	}
	return model
}

// streams is each pool's provider streams in the replay: more than any
// pool can hold, so the provider never queues a call and its load
// slowdown is linear in the calls it serves (slowdown knee 0).
const streams = 1_000_000

// slowdownMax is the scenario's largest slowdown factor (scenario checks).
const slowdownMax = 1000

// simulate replays the process once with the latency draws of seed.
func simulate(p *Process, h Harness, fits map[string]*Fit, w WhatIf, seed uint64) (Measures, error) {
	log, share, err := replayLog(p, h, fits, w, seed)
	if err != nil {
		return Measures{}, err
	}
	return simMeasures(log, len(p.Samples), share)
}

// replayLog runs the replay and returns its event log and the provider
// share of a call's hold by pool and sample (job): its fold's, fitted
// without the sample.
func replayLog(p *Process, h Harness, fits map[string]*Fit, w WhatIf, seed uint64) ([]sim.LogRecord, shareFunc, error) {
	pools, poolIdx := []string{}, map[string]int{}
	for _, s := range p.Samples {
		pl := poolOf(h, s.Model)
		if _, ok := poolIdx[pl]; !ok {
			poolIdx[pl] = len(pools)
			pools = append(pools, pl)
		}
	}
	beta, poolFit := make([]float64, len(pools)), make([]*Fit, len(pools))
	for _, s := range p.Samples {
		if f := fits[s.Model]; f != nil {
			beta[poolIdx[poolOf(h, s.Model)]] = f.Load
			poolFit[poolIdx[poolOf(h, s.Model)]] = f
		}
	}
	share := func(pool int32, job int64) float64 {
		if int(pool) < len(poolFit) && poolFit[pool] != nil {
			return poolFit[pool].shareFor(int(job))
		}
		return 1
	}
	sc, err := replayScenario(p, h, pools, beta, w)
	if err != nil {
		if w.Quota != "" || w.Prices != "" {
			return nil, nil, fmt.Errorf("--quota %q / --prices %q do not make a valid organisation and model: %v", w.Quota, w.Prices, err)
		}
		return nil, nil, fmt.Errorf("the replay's scenario: %v", err)
	}
	src := &jobSource{}
	for i, s := range p.Samples {
		plan, err := samplePlan(s, i, fits, seed, func(model string) int { return poolIdx[poolOf(h, model)] })
		if err != nil {
			return nil, nil, err
		}
		plan.Setup += p.Handoff
		src.jobs = append(src.jobs, workloads.Job{ID: int64(i), Account: "inspect", Project: fmt.Sprintf("task%03d", s.Task),
			Batch: fmt.Sprintf("task%03d", s.Task), Model: poolIdx[poolOf(h, s.Model)], Behaviour: workloads.PlanBehaviour(plan),
			Seed: uint64(i + 1), Judge: -1})
	}
	name := w.Policy
	if name == "" {
		name = "inspect"
	}
	pol, err := scenario.NewPolicy(name, sc)
	if err != nil {
		return nil, nil, err
	}
	world, err := sim.NewWorld(sc, sim.Options{Seed: seed, Policy: pol, Source: src, Log: true})
	if err != nil {
		return nil, nil, err
	}
	if err := world.Run(); err != nil {
		return nil, nil, err
	}
	return world.Log(), share, nil
}

// samplePlan is the sample's call plan with each call's unloaded latency
// drawn for seed: the mean its fold's model predicts, times a variation
// drawn from the fold's training residual ratios (mean 1, smoothed).
// pool is a model's pool (lab model): a call to another pool than the
// sample's goes there (PlanTurn.Models).
func samplePlan(s *Sample, idx int, fits map[string]*Fit, seed uint64, pool func(string) int) (*workloads.CallPlan, error) {
	own := pool(s.Model)
	h := fnv.New64a()
	h.Write([]byte(s.ID))
	rng := rand.New(rand.NewPCG(seed, h.Sum64()))
	plan := &workloads.CallPlan{Setup: s.Setup, Turns: make([]workloads.PlanTurn, len(s.Turns))}
	for i, t := range s.Turns {
		pt := &plan.Turns[i]
		for _, c := range t.Calls {
			f := fits[c.Model]
			if f == nil {
				return nil, fmt.Errorf("sample %s: no latency model for %s", s.ID, c.Model)
			}
			pt.AddCall(workloads.PlanCall{In: c.In, Out: c.Out}, c.CallRecord)
			if m := pool(c.Model); m != own || pt.Models != nil {
				for len(pt.Models) < len(pt.Calls)-1 {
					pt.Models = append(pt.Models, own)
				}
				pt.Models = append(pt.Models, m)
			}
			mu, fm := f.predict(idx, float64(c.In), float64(c.Out))
			pt.Base = append(pt.Base, max(mu*fm.draw(rng), 0.001))
		}
		switch {
		case i < len(s.Gaps):
			pt.Tool = s.Gaps[i]
		case i == len(s.Turns)-1:
			pt.Tool = s.Trailing
		}
	}
	return plan, nil
}

// replayScenario is the replay's world: a pool (lab model) per connection
// pool with the harness's in-flight limit, providers that never queue
// (their load slowdown the fitted β), no quotas, containers enough for
// every sample (max_sandboxes when set), and the harness policy's
// settings.
func replayScenario(p *Process, h Harness, pools []string, beta []float64, w WhatIf) (*scenario.Scenario, error) {
	var work time.Duration
	for _, s := range p.Samples {
		work += s.Setup + s.Trailing
		for _, g := range s.Gaps {
			work += g
		}
		for _, t := range s.Turns {
			for _, c := range t.Calls {
				work += 20 * max(c.Working, time.Second)
			}
		}
	}
	containers := len(p.Samples)
	if sb := p.Logs[0].MaxSandboxes; sb > 0 {
		containers = min(containers, sb)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "name: replay\nduration: %ds\nwarmup: 0s\n", int64((work + time.Hour).Seconds()))
	fmt.Fprintf(&b, "containers: {capacity: %d, startup: 0s, price_per_hour: 0}\n", containers)
	// An organisation per provider: the quota a what-if gives applies to
	// each provider's account (no quota: none).
	var orgs []string
	orgOf := map[string]string{}
	for _, pl := range pools {
		o := pl
		if i := strings.IndexByte(pl, '/'); i > 0 {
			o = pl[:i]
		}
		if !slices.Contains(orgs, o) {
			orgs = append(orgs, o)
		}
		orgOf[pl] = o
	}
	b.WriteString("organisations:\n")
	for _, o := range orgs {
		if w.Quota != "" {
			fmt.Fprintf(&b, "  - {name: %q, %s}\n", o, strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(w.Quota), "{"), "}"))
		} else {
			fmt.Fprintf(&b, "  - {name: %q}\n", o)
		}
	}
	// inspect_ai's retry (model/_retry.py model_retry_config, 0.3.133 …
	// 0.3.241): tenacity wait_exponential_jitter(initial=3, max=1800,
	// jitter=3), i.e. 3·2^(n−1) s plus up to 3 s, at most 30 min; the
	// connection held meanwhile (the pool is held around _generate).
	b.WriteString("gateway: {retry: {base: 3s, max: 30m, multiplier: 2, jitter: 0, jitter_add: 3s, honour_retry_after: false, hold_connection: true}")
	if h.Adaptive {
		// inspect_ai's adaptive connections, its own controller
		// (scenario.InspectAdaptiveConfig), from the pool's start.
		fmt.Fprintf(&b, ", inspect_adaptive: {min: %d, max: %d}", h.AdaptiveMin, h.AdaptiveMax)
	}
	b.WriteString("}\n")
	fmt.Fprintf(&b, "model_defaults: {streams: %d, inflight_limit: %d, jitter: {dist: none}}\nmodels:\n", streams, h.MaxConnections)
	for i, pl := range pools {
		fmt.Fprintf(&b, "  - {name: %q, org: %q, ttft: 1s, decode_rate: 100", pl, orgOf[pl])
		if w.Prices != "" {
			fmt.Fprintf(&b, ", prices: %s", strings.TrimSpace(w.Prices))
		}
		if beta[i] > 0 {
			// latency × (1 + (max−1)·busy/streams) = × (1 + β·busy) while
			// busy < streams (≥ 4,995 at β ≤ 0.2: more than any pool holds).
			fmt.Fprintf(&b, ", streams: %d, slowdown: {knee: 0, max: %d}", int(math.Round(slowdownMax-1)/beta[i]), slowdownMax)
		}
		b.WriteString("}\n")
	}
	fmt.Fprintf(&b, "workload:\n  accounts: 1\n  projects_per_account: 1\n  models: {hot: [%q], hot_share: 1}\n", pools[0])
	fmt.Fprintf(&b, "  batches: {rate_per_hour: 0}\n  background: {rate_per_hour: 0}\n  behaviours: {replay: {turns: 1}}\n")
	follow := 0
	if h.Adaptive && !h.SamplesSet {
		follow = adaptiveBuffer // the sample limiter follows the pool (policies.InspectConfig.FollowPool)
	}
	fmt.Fprintf(&b, "policies:\n  fixed_lane: {global_cap: %d}\n  inspect: {max_samples: %d, max_tasks: %d, follow_pool: %d}\n", containers, h.MaxSamples, h.MaxTasks, follow)
	return scenario.ParseScenario("replay", []byte(b.String()))
}

type jobSource struct {
	jobs []workloads.Job
	i    int
}

func (s *jobSource) Next() (workloads.Job, bool) {
	if s.i >= len(s.jobs) {
		return workloads.Job{}, false
	}
	s.i++
	return s.jobs[s.i-1], true
}

func (s *jobSource) Err() error { return nil }
