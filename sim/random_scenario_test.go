package sim

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
)

// The scenario tests elsewhere each turn one feature on; these draw
// scenarios that combine them at random — organisations with any of the
// four quotas, rolling or reset daily, burning or not, with history and
// either admission rule; virtual keys with caps, budgets and pacing;
// separate evaluation organisations; production generators with their own
// retries, and request traces replayed as production (../shared/traces, or the shipped samples);
// capacity events, stale metrics, the adaptive gateway limit; grading,
// phase switches, bursts; guards, alerts and scheduler settings —
// and check, under both policies, what must hold whatever the combination:
// the run ends, jobs and calls are conserved (from the event log), no quota
// window of an organisation or key ever serves above its limit and no key
// spends past its budget (from the log's accepted tries, not the
// counters), no start passes the container pool, the worker cap or a
// fixed lane's cap and no call the gateway's in-flight limit (from the
// log's starts and acceptances), and the same seed gives the same summary
// twice.
//
//	go test -run RandomScenarios ./sim/ -random-scenarios 500
//	go test -run RandomScenarios ./sim/ -random-scenarios 500 -random-scenarios-from 1000
var (
	randomScenarios    = flag.Int("random-scenarios", 30, "how many random scenarios TestRandomScenarios draws")
	randomScenarioFrom = flag.Int("random-scenarios-from", 0, "the first random scenario TestRandomScenarios draws (each is named by its number, which seeds it)")
)

func TestRandomScenarios(t *testing.T) {
	traces := requestTraces(t)
	for i := *randomScenarioFrom; i < *randomScenarioFrom+*randomScenarios; i++ {
		text := randomScenario(rand.New(rand.NewPCG(uint64(i), 0x72616e64)), traces)
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			sc, err := scenario.ParseScenario(fmt.Sprintf("random-%d.yaml", i), []byte(text))
			if err != nil {
				t.Fatalf("a generated scenario was refused: %v\n%s", err, text)
			}
			runs := []struct {
				name, policy string
				sc           *scenario.Scenario
			}{{"fixed-lane", "fixed-lane", sc}, {"scheduler", "scheduler", sc}}
			for _, name := range sc.VariantNames() {
				v, err := sc.Variant(name)
				if err != nil {
					t.Fatalf("variant %s: %v", name, err)
				}
				runs = append(runs, struct {
					name, policy string
					sc           *scenario.Scenario
				}{name, v.Policy, v.Scenario})
			}
			for _, run := range runs {
				policy, sc := run.name, run.sc
				w := runWorld(t, sc, run.policy, Options{Seed: uint64(i) + 1, Log: true}, nil)
				c := checkConserved(t, w)
				t.Logf("%s: %d arrived, %d finished, %d calls, %d 429s, %d events", policy, c.arrived, c.finished, c.created, c.rejected429, w.EventsProcessed())
				checkQuotasFromLog(t, sc, w)
				checkCapsFromLog(t, sc, run.policy, w)
				checkSeriesTokens(t, w)
				a := randomSummary(t, w)
				b := randomSummary(t, runWorld(t, sc, run.policy, Options{Seed: uint64(i) + 1, Log: true}, nil))
				if !bytes.Equal(a, b) {
					t.Errorf("%s: the same seed gave different summaries\n%s", policy, text)
				}
			}
		})
	}
}

func randomSummary(t *testing.T, w *World) []byte {
	t.Helper()
	data, err := json.Marshal(results.Summarize(w.Measured()))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// checkQuotasFromLog checks every organisation's and key's windows, and
// each key's budget, against the tries the event log says were accepted.
func checkQuotasFromLog(t *testing.T, sc *scenario.Scenario, w *World) {
	t.Helper()
	for i, o := range sc.Organisations {
		tries := acceptedBy(w.Log(), func(r LogRecord) bool { return r.Org == int32(i) })
		checkWindows(t, "org "+o.Name, tries, o.Limits(), o.DailyReset != nil, scenario.UnderLimit(o.Admission))
		if o.DailyReset != nil {
			checkFixedDays(t, "org "+o.Name, tries, o.Limits(), sc.Clock, *o.DailyReset, scenario.UnderLimit(o.Admission))
		}
	}
	keyOf := map[int32]string{}
	for i, m := range sc.ModelConfigs() {
		keyOf[int32(i)] = m.EvalKey
	}
	for _, k := range sc.Keys {
		tries := acceptedBy(w.Log(), func(r LogRecord) bool { return r.Job >= 0 && keyOf[r.Model] == k.Name })
		checkWindows(t, "key "+k.Name, tries, k.Limits(), false, scenario.UnderLimit(k.Admission))
		spent := 0.0
		for _, x := range tries {
			spent += x.tokens
		}
		if k.BudgetTokens > 0 && spent > k.BudgetTokens {
			t.Errorf("key %s: %.0f tokens accepted past its budget of %.0f", k.Name, spent, k.BudgetTokens)
		}
	}
}

// checkCapsFromLog replays the log's job starts and ends and its calls'
// acceptances and answers, and checks at every start and acceptance what no
// policy may exceed: the container pool; the worker cap of the guards; under
// fixed-lane each lane's cap and the shared lane's remainder of the global
// cap; and, per model, the gateway's in-flight limit on evaluation calls
// (max_factor times it under the adaptive limit).
func checkCapsFromLog(t *testing.T, sc *scenario.Scenario, policy string, w *World) {
	t.Helper()
	models := sc.ModelConfigs()
	laneOf := func(m int32) string { // fixed-lane's lane of a model: its own, or "" (shared)
		if _, ok := sc.Policies.FixedLane.Lanes[models[m].Name]; ok {
			return models[m].Name
		}
		return ""
	}
	laneCap := map[string]int{"": sc.Policies.FixedLane.GlobalCap}
	for name, c := range sc.Policies.FixedLane.Lanes {
		laneCap[name] = c
		laneCap[""] -= c
	}
	inflightCap := func(m int32) int {
		if a := sc.Gateway.AdaptiveLimit; a.Enabled {
			return int(a.MaxFactor * float64(models[m].InflightLimit))
		}
		return models[m].InflightLimit
	}
	running, byLane := 0, map[string]int{}
	modelOf := map[policies.JobID]int32{}
	inflight := map[int32]int{}
	accepted := map[int64]bool{}
	for _, r := range w.Log() {
		switch r.Event {
		case LogJobStart:
			running++
			modelOf[r.Job] = r.Model
			byLane[laneOf(r.Model)]++
			if running > sc.Containers.Capacity {
				t.Fatalf("%s: %d jobs running at %v in %d containers", policy, running, r.T.Duration(), sc.Containers.Capacity)
			}
			if g := sc.Policies.Guards.MaxJobs; g > 0 && running > g {
				t.Fatalf("%s: %d jobs running at %v past the worker cap %d", policy, running, r.T.Duration(), g)
			}
			if l := laneOf(r.Model); policy == "fixed-lane" && byLane[l] > laneCap[l] {
				t.Fatalf("fixed-lane: lane %q runs %d jobs at %v, cap %d", l, byLane[l], r.T.Duration(), laneCap[l])
			}
		case LogJobFinish, LogJobFail:
			if m, ok := modelOf[r.Job]; ok { // a job may fail before it starts
				running--
				byLane[laneOf(m)]--
				delete(modelOf, r.Job)
			}
		case LogCallAccept:
			if r.Job < 0 {
				continue // production: its own clients, not the gateway's limit
			}
			accepted[r.Call] = true
			if inflight[r.Model]++; inflight[r.Model] > inflightCap(r.Model) {
				t.Fatalf("%s: %d calls in flight on %s at %v, limit %d", policy, inflight[r.Model], models[r.Model].Name, r.T.Duration(), inflightCap(r.Model))
			}
		case LogCallAnswer, LogCallOutage, LogCallFail:
			if accepted[r.Call] {
				delete(accepted, r.Call)
				inflight[r.Model]--
			}
		}
	}
}

// checkFixedDays checks the daily windows reset at a time of day: the tries
// accepted between two resets (the first at the first instant after 0 whose
// time of day on clock is reset, then every 24 h) stay within the limit.
// The log holds the run's tries only, a lower bound of the window's count.
func checkFixedDays(t *testing.T, who string, tries []try, limits [scenario.NumDims]float64, clock, reset time.Duration, underLimit bool) {
	t.Helper()
	const day = 24 * time.Hour
	first := (reset - clock%day + day) % day
	if first == 0 {
		first = day
	}
	for _, d := range []int{scenario.DimRPD, scenario.DimTPD} {
		limit := limits[d]
		if limit == 0 {
			continue
		}
		sum, end := 0.0, FromDuration(first)
		for _, x := range tries {
			for x.t >= end {
				sum, end = 0, end+FromDuration(day)
			}
			amt := 1.0
			if d == scenario.DimTPD {
				amt = x.tokens
			}
			if underLimit && sum >= limit {
				t.Fatalf("%s: fixed %s window let a try in at %v holding %.0f >= limit %.0f", who, scenario.DimNames[d], x.t.Duration(), sum, limit)
			}
			sum += amt
			if !underLimit && sum > limit {
				t.Fatalf("%s: fixed %s window serves %.0f > limit %.0f at %v", who, scenario.DimNames[d], sum, limit, x.t.Duration())
			}
		}
	}
}

// requestTraces are the request traces a random scenario may replay as
// production ("PATH FORMAT"): the whole public traces beside the repository
// when they are there, else the samples the repository ships.
func requestTraces(t *testing.T) []string {
	if shared, err := filepath.Abs("../../shared/traces"); err == nil {
		if _, err := os.Stat(shared); err == nil {
			return []string{shared + "/AzureLLMInferenceTrace_conv.csv azure", shared + "/AzureLLMInferenceTrace_code.csv azure",
				shared + "/mooncake_conversation_trace.jsonl mooncake"}
		}
	}
	samples, err := filepath.Abs("../workloads/testdata/traces")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("no ../shared/traces beside the repository: replaying the shipped samples in %s instead", samples)
	return []string{samples + "/AzureLLMInferenceTrace_code.sample.csv azure", samples + "/mooncake_conversation_trace.sample.jsonl mooncake"}
}

// randomScenario draws a small valid scenario combining features at random;
// traces are the request traces it may replay ("PATH FORMAT").
func randomScenario(r *rand.Rand, traces []string) string {
	var b strings.Builder
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	chance := func(p float64) bool { return r.Float64() < p }
	durMin := []int{20, 40, 60, 90}[r.IntN(4)]
	fmt.Fprintf(&b, "name: random\nduration: %dm\nwarmup: %s\nseries_interval: %s\nclock: %dh%dm\n",
		durMin, pick("0s", "2m", "5m"), pick("10s", "30s", "1m"), r.IntN(168), r.IntN(60))
	capacity := 5 + r.IntN(200)
	fmt.Fprintf(&b, "containers: {capacity: %d, startup: %s}\n", capacity, pick("0s", "2s", "10s", "30s"))

	// Gateway.
	fmt.Fprintf(&b, "gateway:\n  depth_delay: %s\n  depth_sample: %s\n  depth_signal: %s\n",
		pick("0s", "5s", "30s"), pick("1s", "5s"), pick("held", "held", "held", "queued"))
	fmt.Fprintf(&b, "  retry: {base: %s, max: %s, multiplier: %s, jitter: %s, honour_retry_after: %t, max_attempts: %d}\n",
		pick("100ms", "1s", "2s"), pick("10s", "60s"), pick("1.5", "2"), pick("0", "0.5", "1"), chance(0.5), []int{0, 0, 3, 10}[r.IntN(4)])
	if chance(0.2) {
		b.WriteString("  adaptive_limit: {enabled: true}\n")
	}
	if chance(0.15) {
		from := r.IntN(durMin)
		fmt.Fprintf(&b, "  stale: [{from: %dm, to: %dm}]\n", from, from+1+r.IntN(10))
	}

	// Organisations: any of the four quotas, small enough to bind.
	// A harsh scenario's quotas are tiny: a call may be larger than a
	// whole window, and retries storm.
	scale := 1
	if chance(0.25) {
		scale = 100
	}
	// quotas writes each of the four limits with probability p, drawn from
	// [lo, lo+span) and divided by scale (at least 1).
	quotas := func(prefix, suffix string, p [scenario.NumDims]float64, lo, span [scenario.NumDims]int) {
		for d, key := range []string{"rpm", "tpm", "rpd", "tpd"} {
			if chance(p[d]) {
				fmt.Fprintf(&b, "%s%s: %d%s", prefix, key, max(1, (lo[d]+r.IntN(span[d]))/scale), suffix)
			}
		}
	}
	nOrg := 1 + r.IntN(3)
	b.WriteString("organisations:\n")
	for i := range nOrg {
		fmt.Fprintf(&b, "  - name: o%d\n", i)
		quotas("    ", "\n", [scenario.NumDims]float64{0.6, 0.6, 0.4, 0.4}, [scenario.NumDims]int{20, 20000, 200, 200000}, [scenario.NumDims]int{2000, 2000000, 50000, 50000000})
		if chance(0.2) {
			fmt.Fprintf(&b, "    daily_reset: %dh\n", r.IntN(24))
		}
		if chance(0.3) {
			b.WriteString("    count_rejected: true\n")
		}
		if chance(0.3) {
			b.WriteString("    admission: under_limit\n")
		}
		if chance(0.25) {
			fmt.Fprintf(&b, "    history: {requests: %d, tokens: %d", r.IntN(30000), r.IntN(30000000))
			if chance(0.5) {
				b.WriteString(", hourly: [")
				for h := range 24 {
					if h > 0 {
						b.WriteString(", ")
					}
					fmt.Fprintf(&b, "%.1f", 0.1+2*r.Float64())
				}
				b.WriteString("]")
			}
			b.WriteString("}\n")
		}
	}

	// Virtual keys.
	nKey := r.IntN(3)
	if nKey > 0 {
		b.WriteString("keys:\n")
		for i := range nKey {
			fmt.Fprintf(&b, "  - {name: k%d", i)
			quotas(", ", "", [scenario.NumDims]float64{0.6, 0.6, 0, 0.2}, [scenario.NumDims]int{10, 10000, 0, 100000}, [scenario.NumDims]int{1000, 1000000, 1, 20000000})
			if chance(0.3) {
				fmt.Fprintf(&b, ", budget_tokens: %d", max(1, (10000+r.IntN(2000000))/scale))
			}
			if chance(0.4) {
				b.WriteString(", pace: true")
			}
			if chance(0.3) {
				b.WriteString(", admission: under_limit")
			}
			b.WriteString("}\n")
		}
	}
	if chance(0.3) {
		fmt.Fprintf(&b, "alert: {share: %s}\n", pick("0.5", "0.7", "0.9"))
	}

	// Models: the last is the judge when grading is on.
	nModel := 2 + r.IntN(5)
	b.WriteString("models:\n")
	for i := range nModel {
		streams := 1 + r.IntN(60)
		fmt.Fprintf(&b, "  - {name: m%d, streams: %d, ttft: %s, decode_rate: %d", i, streams, pick("200ms", "1s", "2s"), 20+r.IntN(130))
		if chance(0.8) {
			fmt.Fprintf(&b, ", org: o%d", r.IntN(nOrg))
		}
		if chance(0.15) {
			fmt.Fprintf(&b, ", eval_org: o%d", r.IntN(nOrg))
		}
		if nKey > 0 && chance(0.3) {
			fmt.Fprintf(&b, ", eval_key: k%d", r.IntN(nKey))
		}
		if chance(0.4) {
			fmt.Fprintf(&b, ", inflight_limit: %d", 1+r.IntN(2*streams))
		}
		if chance(0.5) {
			fmt.Fprintf(&b, ", jitter: {dist: %s, cv: %s}", pick("lognormal", "exponential"), pick("0.3", "1"))
		}
		if chance(0.3) {
			b.WriteString(", slowdown: {knee: 0.7, max: 2}")
		}
		b.WriteString("}\n")
	}
	if chance(0.3) {
		at := 1 + r.IntN(durMin-1)
		m := r.IntN(nModel)
		fmt.Fprintf(&b, "events:\n  - {at: %dm, model: m%d, capacity: %s, latency: %s}\n", at, m, pick("0", "0.5", "2"), pick("1", "3"))
		if chance(0.5) && at+1 < durMin {
			fmt.Fprintf(&b, "  - {at: %dm, model: m%d, capacity: 1, latency: 1}\n", at+1+r.IntN(durMin-at-1), m)
		}
	}

	// Production generators on random models, and request traces replayed
	// as production when the public traces are there.
	nProd, nTrace := r.IntN(3), 0
	if len(traces) > 0 && chance(0.3) {
		nTrace = 1
	}
	if nProd+nTrace > 0 {
		b.WriteString("production:\n")
		for i := range nTrace {
			file, format, _ := strings.Cut(pick(traces...), " ")
			fmt.Fprintf(&b, "  - {name: t%d, trace: %s, format: %s, model: m%d, speedup: %d, loop: %t, max_attempts: %d}\n",
				i, file, format, r.IntN(nModel), 1+r.IntN(8), chance(0.5), 1+r.IntN(3)) // a written 0 is refused: 1 to 3 (the default)
		}
		for i := range nProd {
			fmt.Fprintf(&b, "  - name: p%d\n    model: m%d\n    rate_per_hour: %d\n    prompt_tokens: %s\n    output_tokens: %d\n",
				i, r.IntN(nModel), 10+r.IntN(20000), pick("500", "{dist: lognormal, median: 800, sigma: 1}"), 50+r.IntN(500))
			if chance(0.5) {
				fmt.Fprintf(&b, "    retry: {base: %s, max: 5s, multiplier: 2, jitter: 0.5, max_attempts: %d}\n", pick("200ms", "1s"), 1+r.IntN(5))
			}
			if chance(0.3) {
				fmt.Fprintf(&b, "    outage_threshold: %s\n", pick("0.3", "0.9"))
			}
		}
	}

	// Workload.
	grading := chance(0.3)
	judge := nModel - 1
	fmt.Fprintf(&b, "workload:\n  accounts: %d\n  projects_per_account: %d\n", 1+r.IntN(5), 1+r.IntN(3))
	if chance(0.5) {
		b.WriteString("  tiers: {account: [0.2, 0.3, 0.5], project_override: 0.2, batch_override: 0.1}\n")
	}
	fmt.Fprintf(&b, "  models:\n    hot: [m0]\n    hot_share: %s\n    zipf_s: %s\n", pick("0.3", "0.6", "0.9"), pick("1.2", "2"))
	if grading {
		fmt.Fprintf(&b, "    exclude: [m%d]\n", judge)
	}
	fmt.Fprintf(&b, "  batches:\n    rate_per_hour: %d\n    size: {dist: uniform, min: 1, max: %d}\n", 1+r.IntN(30), 1+r.IntN(80))
	if chance(0.4) {
		fmt.Fprintf(&b, "    bursts: [{at: %dm, batches: %d, spread: %s}]\n", r.IntN(durMin), 1+r.IntN(4), pick("0s", "1m"))
	}
	if chance(0.3) {
		b.WriteString("    profile: {hourly: [1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1], weekday: [1, 1, 1, 1, 1, 0.5, 0.5]}\n")
	}
	fmt.Fprintf(&b, "  background: {rate_per_hour: %d, size: %d}\n", r.IntN(400), 1+r.IntN(3))
	b.WriteString("  behaviours:\n")
	nBeh := 1 + r.IntN(2)
	for i := range nBeh {
		fmt.Fprintf(&b, "    b%d:\n      turns: {dist: uniform, min: 1, max: %d}\n      fanout: %s\n", i, 1+r.IntN(8), pick("1", "1", "{dist: uniform, min: 1, max: 3}"))
		fmt.Fprintf(&b, "      prompt_tokens: {dist: lognormal, median: %d, sigma: 0.5}\n      output_tokens: {dist: exponential, mean: %d}\n", 200+r.IntN(8000), 50+r.IntN(800))
		fmt.Fprintf(&b, "      tool_tokens: %d\n      tool_seconds: {dist: exponential, mean: %d}\n", r.IntN(2000), 1+r.IntN(20))
		if chance(0.2) {
			b.WriteString("      phase_switch: {at_fraction: 0.5, fanout: 2}\n")
		}
		if grading {
			fmt.Fprintf(&b, "      grading: {probability: %s, judge: m%d}\n", pick("0.5", "1"), judge)
		}
	}

	// Policies and guards.
	globalCap := 1 + r.IntN(capacity)
	fmt.Fprintf(&b, "policies:\n  fixed_lane:\n    global_cap: %d\n    lanes: {m0: %d}\n", globalCap, 1+r.IntN(globalCap))
	if chance(0.6) {
		fmt.Fprintf(&b, "  scheduler:\n    tick: %s\n    target_depth: %d\n    controller: %s\n    reject_lower_after: %d\n",
			pick("5s", "10s"), 1+r.IntN(30), pick("slowstart", "step", "search", "aimd", "pi", "gradient", "inspect", "bands", "damped"), 1+r.IntN(5))
		if chance(0.3) {
			b.WriteString("    job_rate_hold: 5m\n")
		}
		if chance(0.2) {
			b.WriteString("    ignore_quota: true\n")
		}
	}
	if chance(0.4) {
		b.WriteString("  guards:\n")
		if chance(0.6) {
			fmt.Fprintf(&b, "    breaker: {open: 0.7, close: 0.6, production_only: %t}\n", chance(0.5))
		}
		if chance(0.6) {
			fmt.Fprintf(&b, "    max_jobs: %d\n", 1+r.IntN(50))
		}
	}

	// Variants: overlays of organisations, keys, models, guards, clock and daily reset.
	b.WriteString("variants:\n")
	fmt.Fprintf(&b, "  v-org: {policy: %s, organisations: [{name: o0, admission: %s, count_rejected: %t}]}\n",
		pick("fixed-lane", "scheduler"), pick("fit", "under_limit"), chance(0.5))
	fmt.Fprintf(&b, "  v-key:\n    keys: [{name: kv, rpm: %d, tpm: %d, pace: %t}]\n    models: [{name: m0, eval_key: kv}]\n",
		1+r.IntN(200), 1000+r.IntN(200000), chance(0.5))
	fmt.Fprintf(&b, "  v-guard: {policy: fixed-lane, policies: {guards: {breaker: {open: 0.5, close: 0.4}, max_jobs: %d}}}\n", 1+r.IntN(20))
	// A daily quota that binds early, reset a few minutes into the run.
	reset := r.IntN(24)
	fmt.Fprintf(&b, "  v-reset: {clock: %dh%dm, organisations: [{name: o%d, daily_reset: %dh, rpd: %d, tpd: %d, admission: %s}]}\n",
		(reset+23)%24, 60-5-r.IntN(10), r.IntN(nOrg), reset, 50+r.IntN(500), 50000+r.IntN(500000), pick("fit", "under_limit"))
	return b.String()
}
