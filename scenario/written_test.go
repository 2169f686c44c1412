package scenario

import (
	"strings"
	"testing"

	"github.com/evalsched/lab/scenario/scenariotest"
	"github.com/google/go-cmp/cmp"
)

// TestWrittenZeroRefused: a 0 written for a field whose 0 means "use the
// default" is refused at its line, naming the field (it ran as the default
// before: target_depth: 0 ran depth 8); the field left out still loads.
func TestWrittenZeroRefused(t *testing.T) {
	const sched = "    lanes: {a: 20}\n"
	const org = "{name: o, rpm: 100}"
	const left = "dir/bad.yaml:27: policies.scheduler."
	const tail = ", got 0 (leave the field out for the default)"
	for _, tc := range []struct{ name, old, new, want string }{
		{"tick", sched, sched + "  scheduler: {tick: 0s}\n", left + "tick: must be > 0" + tail},
		{"target_depth", sched, sched + "  scheduler: {target_depth: 0}\n", left + "target_depth: must be >= 1" + tail},
		{"target_depth 0.0", sched, sched + "  scheduler: {target_depth: 0.0}\n", left + "target_depth: must be >= 1" + tail},
		{"min_limit", sched, sched + "  scheduler: {min_limit: 0}\n", left + "min_limit: must be >= 1" + tail},
		{"max_limit", sched, sched + "  scheduler: {max_limit: 0}\n", left + "max_limit: must be >= 1" + tail},
		{"initial_limit", sched, sched + "  scheduler: {initial_limit: 0}\n", left + "initial_limit: must be within [min_limit, max_limit]" + tail},
		{"step", sched, sched + "  scheduler: {step: 0}\n", left + "step: must be >= 1" + tail},
		{"factor", sched, sched + "  scheduler: {factor: 0}\n", left + "factor: must be > 1" + tail},
		{"stale_after", sched, sched + "  scheduler: {stale_after: 0s}\n", left + "stale_after: must be > 0" + tail},
		{"dead_time", sched, sched + "  scheduler: {dead_time: 0s}\n", left + "dead_time: must be > 0 (leave it out for 3 ticks)" + tail},
		{"quota_dead_time", sched, sched + "  scheduler: {quota_dead_time: 0s}\n", left + "quota_dead_time: must be >= dead_time" + tail},
		{"tier_share", sched, sched + "  scheduler: {tier_share: 0}\n", left + "tier_share: must be within (0, 1]" + tail},
		{"reject_lower_after", sched, sched + "  scheduler: {reject_lower_after: 0}\n", left + "reject_lower_after: must be >= 1 tick" + tail},
		{"model target_depth", sched, sched + "  scheduler: {models: {a: {target_depth: 0}}}\n",
			"dir/bad.yaml:27: policies.scheduler.models.a.target_depth: must be >= 1, got 0 (leave the field out to inherit)"},
		{"breaker open", sched, sched + "  guards: {breaker: {open: 0}}\n", "dir/bad.yaml:27: policies.guards.breaker.open: must be in (0, 1], got 0 (leave the field out for 0.7)"},
		{"global_cap", "global_cap: 50", "global_cap: 0", "dir/bad.yaml:25: policies.fixed_lane.global_cap: must be > 0" + tail},
		{"series_interval", "warmup: 5m", "warmup: 5m\nseries_interval: 0s", "dir/bad.yaml:4: series_interval: must be > 0" + tail},
		{"fairness_window", "warmup: 5m", "warmup: 5m\nfairness_window: 0s", "dir/bad.yaml:4: fairness_window: must be >= series_interval" + tail},
		{"depth_sample", "warmup: 5m", "warmup: 5m\ngateway: {depth_sample: 0s}", "dir/bad.yaml:4: gateway.depth_sample: must be > 0" + tail},
		{"retry multiplier", "warmup: 5m", "warmup: 5m\ngateway: {retry: {multiplier: 0}}", "dir/bad.yaml:4: gateway.retry.multiplier: must be >= 1" + tail},
		{"adaptive window", "warmup: 5m", "warmup: 5m\ngateway: {adaptive_limit: {enabled: true, window: 0s}}", "dir/bad.yaml:4: gateway.adaptive_limit.window: must be > 0" + tail},
		{"inspect cooldown", "warmup: 5m", "warmup: 5m\ngateway: {inspect_adaptive: {cooldown: 0s}}", "dir/bad.yaml:4: gateway.inspect_adaptive.cooldown: must be > 0" + tail},
		{"inflight_limit", "    streams: 10\n", "    streams: 10\n    inflight_limit: 0\n", "dir/bad.yaml:11: models[0].inflight_limit: must be > 0" + tail},
		{"cache lifetime", org, "{name: o, rpm: 100, cache: {lifetime: 0s}}", "dir/bad.yaml:6: organisations[0].cache.lifetime: must be > 0" + tail},
		{"cache read price", "    streams: 10\n", "    streams: 10\n    prices: {input: 3, cache_read: 0}\n",
			"dir/bad.yaml:11: models[0].prices.cache_read: must be > 0 (a free cache read is cache.read_factor: 0)" + tail},
		{"rpm 0 under a preset", org, "{name: o, rpm: 0, tpm: 100000, preset: azure-openai}",
			"dir/bad.yaml:6: organisations[0].rpm: 0 with preset azure-openai, which derives the RPM from the TPM: leave rpm out for that, or give a limit"},
		{"production outage_threshold", "workload:", "production:\n  - {name: p, model: a, rate_per_hour: 10, prompt_tokens: 10, output_tokens: 10, outage_threshold: 0}\nworkload:",
			"dir/bad.yaml:14: production[0].outage_threshold: must be in (0, 1] (0 would count no minute)" + tail},
		{"production retry base", "workload:", "production:\n  - {name: p, model: a, rate_per_hour: 10, prompt_tokens: 10, output_tokens: 10, retry: {base: 0s}}\nworkload:",
			"dir/bad.yaml:14: production[0].retry.base: must be > 0" + tail},
		{"breaker close", sched, sched + "  guards: {breaker: {close: 0}}\n", "dir/bad.yaml:27: policies.guards.breaker.close: must be in (0, open], got 0 (leave the field out for min(0.6, open))"},
		{"batch median", org, "{name: o, rpm: 100, batch: {median: 0s}}", "dir/bad.yaml:6: organisations[0].batch.median: must be > 0" + tail},
		{"production max_attempts", "workload:", "production:\n  - {name: p, model: a, rate_per_hour: 10, prompt_tokens: 10, output_tokens: 10, max_attempts: 0}\nworkload:",
			"dir/bad.yaml:14: production[0].max_attempts: must be >= 1" + tail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(scenariotest.Valid, tc.old) {
				t.Fatalf("test bug: %q not in the base scenario", tc.old)
			}
			_, err := ParseScenario("dir/bad.yaml", []byte(strings.Replace(scenariotest.Valid, tc.old, tc.new, 1)))
			if err == nil {
				t.Fatal("a written 0 accepted")
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("error text (-want +got):\n%s", diff)
			}
		})
	}
	// The same fields left out take their defaults.
	sc, err := ParseScenario("dir/ok.yaml", []byte(strings.Replace(scenariotest.Valid, sched, sched+"  scheduler: {models: {a: {}}}\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got := sc.Policies.Scheduler.TargetDepth; got != 8 {
		t.Errorf("target_depth left out = %d, want the default 8", got)
	}
}

// TestWrittenZeroInAnOverlay: a 0 an overlay writes (a variant, a sweep's
// grid value) is refused like one in the file.
func TestWrittenZeroInAnOverlay(t *testing.T) {
	src := scenariotest.Valid + "variants:\n  zero: {policy: scheduler, policies: {scheduler: {target_depth: 0}}}\n"
	_, err := ParseScenario("dir/bad.yaml", []byte(src))
	want := `dir/bad.yaml:28: policies.scheduler.target_depth: must be >= 1, got 0 (leave the field out for the default) (in variant "zero")`
	if err == nil {
		t.Fatal("a variant's written 0 accepted")
	}
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("error text (-want +got):\n%s", diff)
	}
}
