package cli

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// badScenario is one broken variant of testdata/small.yaml: old replaced by
// new, and the start of the error it must give after "sim: FILE".
type badScenario struct {
	name, old, new, want string
	args                 []string // extra flags
}

// badScenarios is a table, so longer than a function should be: one broken
// number or structure per row, at the line it is on in testdata/small.yaml.
var badScenarios = []badScenario{
	{"duration overflow", "duration: 1h", "duration: 2562047h", ":4: duration: must be at most 8760h0m0s", nil},
	{"duration as float", "duration: 1h", "duration: 1e30", ":4: duration: want a duration with a unit", nil},
	{"duration without unit", "duration: 1h", "duration: 3600", ":4: duration: want a duration with a unit", nil},
	{"duration as list", "duration: 1h", "duration: [1h]", ":4: duration: want a duration such as 90s or 2h30m, got a list", nil},
	{"warmup nan", "warmup: 10m", "warmup: .nan", ":5: warmup: want a duration with a unit", nil},
	{"capacity fraction", "capacity: 400", "capacity: 9.5", ":6: containers.capacity: must be a whole number, got 9.5", nil},
	{"capacity below one", "capacity: 400", "capacity: 0.9", ":6: containers.capacity: must be a whole number, got 0.9", nil},
	{"capacity huge", "capacity: 400", "capacity: 1e30", ":6: containers.capacity: must be a whole number within", nil},
	{"capacity too many", "capacity: 400", "capacity: 20000000", ":6: containers.capacity: at most", nil},
	{"capacity text", "capacity: 400", "capacity: ten", ":6: containers.capacity: want a whole number", nil},
	{"price nan", "price_per_hour: 0.1", "price_per_hour: .nan", ":6: containers.price_per_hour: must be a finite number", nil},
	{"price inf", "price_per_hour: 0.1", "price_per_hour: .inf", ":6: containers.price_per_hour: must be a finite number", nil},
	{"startup without unit", "startup: 10s", "startup: 10", ":6: containers.startup: want a duration with a unit", nil},
	{"rpm nan", "rpm: 6000", "rpm: .nan", ":8: organisations[0].rpm: must be a finite number", nil},
	{"tpm minus inf", "tpm: 20000000", "tpm: -.inf", ":8: organisations[0].tpm: must be a finite number", nil},
	{"rpm list", "rpm: 6000", "rpm: [1]", ":8: organisations[0].rpm: want a number, got a list", nil},
	{"streams fraction", "streams: 10, ttft", "streams: 9.5, ttft", ":9: model_defaults.streams: must be a whole number", nil},
	{"decode rate nan", "decode_rate: 50", "decode_rate: .nan", ":9: model_defaults.decode_rate: must be a finite number", nil},
	{"ttft text", "ttft: 1s", "ttft: soon", ":9: model_defaults.ttft: want a duration", nil},
	{"jitter cv nan", "cv: 0.4", "cv: .nan", ":9: model_defaults.jitter.cv: must be a finite number", nil},
	{"streams too many", "{name: hot-a, streams: 80}", "{name: hot-a, streams: 2000000}", ":11: models[0].streams: at most", nil},
	{"inflight fraction", "{name: hot-a, streams: 80}", "{name: hot-a, streams: 80, inflight_limit: 2.5}", ":11: models[0].inflight_limit: must be a whole number", nil},
	{"unknown model key", "{name: hot-a, streams: 80}", "{name: hot-a, streams: 80, bogus: 1}", ":11: models[0].bogus: unknown field", nil},
	{"slowdown nan", "max: 1.5}}", "max: .nan}}", ":12: models[1].slowdown.max: must be a finite number", nil},
	{"slowdown huge", "max: 1.5}}", "max: 1e30}}", ":12: models[1].slowdown.max: at most 1000", nil},
	{"knee inf", "knee: 0.8", "knee: .inf", ":12: models[1].slowdown.knee: must be a finite number", nil},
	{"group count huge", "count: 5}", "count: 1e9}", ":14: model_groups[0].count:", nil},
	{"group count fraction", "count: 5}", "count: 2.5}", ":14: model_groups[0].count: must be a whole number", nil},
	{"event capacity nan", "capacity: 0.5, label", "capacity: .nan, label", ":16: events[0].capacity: must be a finite number", nil},
	{"event latency huge", "capacity: 0.5, label", "capacity: 0.5, latency: 1e30, label", ":16: events[0].latency: at most 1000", nil},
	{"event at without unit", "at: 35m", "at: 35", ":16: events[0].at: want a duration with a unit", nil},
	{"accounts fraction", "accounts: 4", "accounts: 4.5", ":18: workload.accounts: must be a whole number", nil},
	{"accounts too many", "accounts: 4", "accounts: 2000000", ":18: workload.accounts: at most", nil},
	{"projects too many", "projects_per_account: 3", "projects_per_account: 3e6", ":19: workload.projects_per_account:", nil},
	{"tier weight nan", "account: [0.2, 0.3, 0.5]", "account: [.nan, 0.3, 0.5]", ":20: workload.tiers.account[0]: must be a finite number", nil},
	{"hot share nan", "hot_share: 0.8", "hot_share: .nan", ":21: workload.models.hot_share: must be a finite number", nil},
	{"zipf inf", "zipf_s: 1.5", "zipf_s: .inf", ":21: workload.models.zipf_s: must be a finite number", nil},
	{"rate nan", "rate_per_hour: 3", "rate_per_hour: .nan", ":23: workload.batches.rate_per_hour: must be a finite number", nil},
	{"rate huge", "rate_per_hour: 3", "rate_per_hour: 1e30", ":23: workload.batches.rate_per_hour: at most", nil},
	{"batch size huge", "max: 2000, alpha", "max: 2e8, alpha", ":24: workload.batches.size: at most", nil},
	{"burst batches fraction", "batches: 3, spread", "batches: 2.5, spread", ":25: workload.batches.bursts[0].batches: must be a whole number", nil},
	{"burst batches huge", "batches: 3, spread", "batches: 5000000, spread", ":25: workload.batches.bursts[0].batches: at most", nil},
	{"burst spread without unit", "spread: 2m", "spread: 2", ":25: workload.batches.bursts[0].spread: want a duration with a unit", nil},
	{"turns huge", "turns: {dist: pareto, min: 2, max: 30, alpha: 1.5}", "turns: 1e30", ":29: workload.behaviours.agent.turns: at most", nil},
	{"turns fraction", "turns: {dist: pareto, min: 2, max: 30, alpha: 1.5}", "turns: 2.5", ":29: workload.behaviours.agent.turns: must be a whole number", nil},
	{"turns nan", "turns: {dist: pareto, min: 2, max: 30, alpha: 1.5}", "turns: .nan", ":29: workload.behaviours.agent.turns: must be a finite number", nil},
	{"fanout zero", "fanout: {dist: uniform, min: 1, max: 3}", "fanout: 0", ":30: workload.behaviours.agent.fanout: must be at least 1", nil},
	{"fanout huge", "fanout: {dist: uniform, min: 1, max: 3}", "fanout: 1e9", ":30: workload.behaviours.agent.fanout: at most", nil},
	{"fanout uniform from zero", "fanout: {dist: uniform, min: 1, max: 3}", "fanout: {dist: uniform, min: 0, max: 3}", ":30: workload.behaviours.agent.fanout: must be at least 1", nil},
	{"output tokens huge", "output_tokens: {dist: lognormal, median: 300, sigma: 0.5}", "output_tokens: 3e9", ":31: workload.behaviours.agent.output_tokens: at most", nil},
	{"output tokens enormous", "output_tokens: {dist: lognormal, median: 300, sigma: 0.5}", "output_tokens: 1e30", ":31: workload.behaviours.agent.output_tokens: at most", nil},
	{"output median nan", "median: 300, sigma: 0.5}", "median: .nan, sigma: 0.5}", ":31: workload.behaviours.agent.output_tokens.median: must be a finite number", nil},
	{"tool seconds huge", "tool_seconds: {dist: lognormal, median: 3, sigma: 0.8}", "tool_seconds: 1e10", ":32: workload.behaviours.agent.tool_seconds: at most", nil},
	{"tool seconds inf", "tool_seconds: {dist: lognormal, median: 3, sigma: 0.8}", "tool_seconds: {dist: fixed, value: .inf}", ":32: workload.behaviours.agent.tool_seconds.value: must be a finite number", nil},
	{"behaviour mix nan", "  behaviours:", "  behaviour_mix: {agent: .nan}\n  behaviours:", ":27: workload.behaviour_mix.agent: must be a finite number", nil},
	{"global cap fraction", "global_cap: 300", "global_cap: 300.5", ":34: policies.fixed_lane.global_cap: must be a whole number", nil},
	{"unknown scheduler knob", "target_depth: 10", "target_depth: 10, bogus_knob: 1", ":35: policies.scheduler.bogus_knob: unknown field", nil},
	{"tick 1ns", "target_depth: 10", "target_depth: 10, tick: 1ns", ":35: policies.scheduler.tick: must be at least 1ms", nil},
	{"factor nan", "factor: 1.25}", "factor: .nan}", ":35: policies.scheduler.factor: must be a finite number", nil},
	{"series interval 1ns", "warmup: 10m", "warmup: 10m\nseries_interval: 1ns", ":6: series_interval: must be at least 1ms", nil},
	{"retry multiplier nan", "warmup: 10m", "warmup: 10m\ngateway: {retry: {multiplier: .nan}}", ":6: gateway.retry.multiplier: must be a finite number", nil},
	{"retry base 1us", "warmup: 10m", "warmup: 10m\ngateway: {retry: {base: 1us, max: 1us}}", ":6: gateway.retry.base: must be at least 1ms", nil},
	// YAML syntax errors at their line (the library counts some from 0).
	{"unclosed flow list", "  accounts: 4", "  accounts: [4", ":18: did not find expected ',' or ']'", nil},
	{"unclosed flow mapping", "capacity: 400,", "capacity: 400", ":6: did not find expected ',' or '}'", nil},
	{"second document", "scheduler: {target_depth", "scheduler: {target_depth: 10}\n---\nname: other\n#", ":36: a second YAML document", nil},
	{"duplicate key", "name: small", "name: small\nname: again", ":4: name: mapping key \"name\" already defined", nil},
	{"models not a list", "models:\n", "models: 5\nold_models:\n", ":10: models: want a list", nil},
	{"rate beyond budget", "rate_per_hour: 3", "rate_per_hour: 1000000", ": run too big: about", nil},
	{"retry storm", "warmup: 10m", "warmup: 10m\ngateway: {retry: {base: 1ms, max: 1ms}}", ": run too big: about", nil},
	// A value set in model_defaults is blamed on its own line, not on the
	// first model that takes it.
	{"default decode rate", "decode_rate: 50", "decode_rate: -5", ":9: model_defaults.decode_rate: must be > 0", nil},
	{"default ttft", "ttft: 1s", "ttft: -1s", ":9: model_defaults.ttft: must be >= 0", nil},
	{"default streams too many", "streams: 10, ttft", "streams: 2000000, ttft", ":9: model_defaults.streams: at most", nil},
	{"memory budget", "rate_per_hour: 3", "rate_per_hour: 300", ": run too big: about", []string{"--max-memory", "1MiB"}},
}

// TestBadScenarios: each broken scenario exits 1 naming FILE:LINE: field,
// and writes nothing.
func TestBadScenarios(t *testing.T) {
	base, err := os.ReadFile("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i, tc := range badScenarios {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(string(base), tc.old) {
				t.Fatalf("test bug: %q not in small.yaml", tc.old)
			}
			file := filepath.Join(dir, "bad"+strings.Repeat("x", i%3)+".yaml")
			if err := os.WriteFile(file, []byte(strings.Replace(string(base), tc.old, tc.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-"))
			_, stderr, code := runSimHere(t, append([]string{"run", "--scenario", file, "--out", out}, tc.args...)...)
			checkRefused(t, code, 1, stderr, "sim: "+file+tc.want, out)
		})
	}
}

// checkRefused checks the exit code, the start of stderr (after any
// warning lines about the scenario) and that no output directory was made.
func checkRefused(t *testing.T, code, wantCode int, stderr, want, out string) {
	t.Helper()
	for strings.HasPrefix(stderr, "warning: ") {
		_, stderr, _ = strings.Cut(stderr, "\n")
	}
	if code != wantCode {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, wantCode, stderr)
	}
	if !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr does not start with the wanted error\nwant: %s\ngot:  %s", want, firstLine(stderr))
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output %s exists after a refused run (%v)", out, err)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// brokenTrace is one broken variant of a trace generated from small.yaml.
type brokenTrace struct {
	name, ext string
	edit      func(lines []string) []string
	want      string // after the trace's path: ":LINE: field:" or ": problem"
}

func setLine(n int, old, new string) func([]string) []string {
	return func(l []string) []string { l[n-1] = strings.Replace(l[n-1], old, new, 1); return l }
}

var brokenTraces = []brokenTrace{
	{"arrival nan", "jsonl", setLine(1, `"arrival_s":47.011916455`, `"arrival_s":NaN`), ":1: record:"},
	{"arrival negative", "jsonl", setLine(2, `"arrival_s":47.011916455`, `"arrival_s":-1`), ":2: arrival_s:"},
	{"arrival huge", "jsonl", setLine(2, `"arrival_s":47.011916455`, `"arrival_s":1e30`), ":2: arrival_s:"},
	{"unknown model", "jsonl", setLine(2, `"model":"hot-a"`, `"model":"nope"`), ":2: model:"},
	{"version", "jsonl", setLine(1, `"v":1`, `"v":2`), ":1: v:"},
	{"negative seed", "jsonl", setLine(3, `"seed":2350327607636352538`, `"seed":-5`), ":3: seed:"},
	{"tier zero", "jsonl", setLine(2, `"account_tier":1`, `"account_tier":-1`), ":2: account_tier:"},
	{"unknown class", "jsonl", setLine(2, `"class":"agent"`, `"class":"nope"`), ":2: class:"},
	{"truncated line", "jsonl", setLine(3, `"model":"hot-a"`, `"model":"hot-a`), ":3: record:"},
	{"duplicate id", "jsonl", setLine(2, `"id":"1"`, `"id":"0"`), ":2: id:"},
	{"out of order", "jsonl", setLine(5, `"arrival_s":47.011916455`, `"arrival_s":1`), ":5: arrival_s:"},
	{"model as number", "jsonl", setLine(2, `"model":"hot-a"`, `"model":5`), ":2: model:"},
	{"empty account", "jsonl", setLine(2, `"account":"acct-001"`, `"account":""`), ":2: account:"},
	{"unknown key", "jsonl", setLine(2, `"v":1`, `"v":1,"bogus":1`), ":2: bogus:"},
	{"gzip named jsonl", "jsonl", nil, ": gzip-compressed; name it"},
	{"gzip named csv", "csv", nil, ": gzip-compressed; name it"},
	{"csv unknown column", "csv", setLine(1, "seed", "sed"), ":1: sed:"},
	{"csv missing column", "csv", setLine(1, "model,", ""), ":1:"},
	{"csv too few fields", "csv", setLine(3, ",agent,", ","), ":3: record:"},
	{"csv bad arrival", "csv", setLine(2, "47.011916455", "x"), ":2: arrival_s:"},
	{"csv unknown model", "csv", setLine(2, "hot-a", "nope"), ":2: model:"},
	{"csv bad tier", "csv", setLine(2, ",1,,,hot-a", ",x,,,hot-a"), ":2: account_tier:"},
}

// TestBadTraces: each broken trace is refused by a run (exit 1) with its
// FILE:LINE: field listed, and nothing written.
func TestBadTraces(t *testing.T) {
	dir := t.TempDir()
	good := map[string][]string{}
	for _, ext := range []string{"jsonl", "csv"} {
		p := filepath.Join(dir, "good."+ext)
		if _, stderr, code := runSim(t, "trace", "gen", "--scenario", "testdata/small.yaml", "--out", p); code != 0 {
			t.Fatalf("trace gen: %s", stderr)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		good[ext] = strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	}
	for _, tc := range brokenTraces {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+"."+tc.ext)
			writeTrace(t, file, tc.edit, good[tc.ext])
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-"))
			_, stderr, code := runSimHere(t, "run", "--scenario", "testdata/small.yaml", "--trace", file, "--out", out)
			want := file + tc.want
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
			checkRefused(t, code, 1, stderr, "sim: "+file, out)
		})
	}
}

// writeTrace writes the edited lines, or (edit nil) the lines gzipped.
func writeTrace(t *testing.T, file string, edit func([]string) []string, lines []string) {
	t.Helper()
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text := strings.Join(lines, "\n") + "\n"
	if edit == nil {
		zw := gzip.NewWriter(f)
		zw.Write([]byte(text))
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return
	}
	if _, err := f.WriteString(strings.Join(edit(append([]string(nil), lines...)), "\n") + "\n"); err != nil {
		t.Fatal(err)
	}
}
