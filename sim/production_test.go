package sim

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/workloads"
)

// The Azure conversation trace, built into the binary (workloads/traces).
const azureConv = workloads.EmbeddedTracePrefix + "AzureLLMInferenceTrace_conv.csv.gz"

func productionScenario(t *testing.T, evalPerHour float64) *scenario.Scenario {
	t.Helper()
	trace := azureConv
	background := ""
	if evalPerHour > 0 {
		background = fmt.Sprintf("background: {rate_per_hour: %g, size: 1}", evalPerHour)
	}
	sc, err := scenario.ParseScenario("prod.yaml", []byte(fmt.Sprintf(`
name: prod
duration: 30m
warmup: 0s
containers: {capacity: 100000, startup: 0s}
organisations: [{name: shared, tpm: 600000}]
models:
  - {name: m, org: shared, streams: 5000, ttft: 500ms, decode_rate: 100}
production:
  - {name: azure-conv, trace: %q, format: azure, model: m, max_attempts: 3}
workload:
  accounts: 1
  projects_per_account: 1
  models: {hot: [m], hot_share: 1}
  %s
  behaviours:
    one: {turns: 1, fanout: 1, prompt_tokens: 2000, output_tokens: 500, tool_seconds: 0}
policies:
  fixed_lane: {global_cap: 100000}
gateway: {retry: {base: 1s, max: 30s}}
`, trace, background)))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestProductionTraffic replays the Azure conversation trace as production
// calls on a model whose organisation's TPM quota the evaluation jobs share.
// Production is served and counted apart from the evaluation lanes, and its
// 429s rise with the evaluation load.
func TestProductionTraffic(t *testing.T) {
	var prev int64 = -1
	var first, last int64
	for i, evalPerHour := range []float64{0, 1800, 3600, 7200} {
		sc := productionScenario(t, evalPerHour)
		w := runLogged(t, sc, "fixed-lane", 1)
		prod := w.Production()
		if len(prod) != 1 {
			t.Fatalf("want one production stream, got %d", len(prod))
		}
		p := prod[0]
		// From the log: production calls carry no job; evaluation calls do.
		var prodAnswered, evalAnswered, prod429 int64
		for _, r := range w.Log() {
			switch {
			case r.Event == LogCallAnswer && r.Job < 0:
				prodAnswered++
			case r.Event == LogCallAnswer:
				evalAnswered++
			case r.Event == LogCall429 && r.Job < 0:
				prod429++
			}
		}
		lane := w.Lanes()[0]
		if prodAnswered != p.Answered || prod429 != p.Rejected429 {
			t.Errorf("load %g: production stats %+v disagree with the log (%d answered, %d 429s)", evalPerHour, p, prodAnswered, prod429)
		}
		if lane.Calls != evalAnswered {
			t.Errorf("load %g: evaluation lane counts %d calls, the log %d evaluation answers: production leaked into the lane", evalPerHour, lane.Calls, evalAnswered)
		}
		if p.Arrived < 9000 || p.Answered+p.Failed > p.Arrived {
			t.Errorf("load %g: production %+v: expected about 30 minutes of the trace (~9,900 requests)", evalPerHour, p)
		}
		t.Logf("eval %5.0f jobs/h: production %d arrived, %d answered, %d 429s, %d failed; evaluation %d calls, %d 429s",
			evalPerHour, p.Arrived, p.Answered, p.Rejected429, p.Failed, lane.Calls, lane.Rejected429)
		if p.Rejected429 < prev {
			t.Errorf("production 429s fell from %d to %d as evaluation load rose to %g jobs/h", prev, p.Rejected429, evalPerHour)
		}
		prev = p.Rejected429
		if i == 0 {
			first = p.Rejected429
		}
		last = p.Rejected429
	}
	if last <= first || last == 0 {
		t.Errorf("production 429s did not rise with evaluation load: %d at none, %d at the highest", first, last)
	}
}

// TestRunReturnsProductionTraceError: a production trace whose first record
// is good passes validation; a malformed record found mid-run must fail the
// run rather than be dropped after Run has returned.
func TestRunReturnsProductionTraceError(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trace   string
		wantErr string // "" = no error
	}{
		{"good", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.0,374,44\n2023-11-16 18:15:50.0,396,109\n", ""},
		{"malformed line mid-run", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.0,374,44\n2023-11-16 18:15:50.0,396,109\n2023-11-16 18:15:55.0,oops,12\n", "production p:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trace := filepath.Join(t.TempDir(), "trace.csv")
			if err := os.WriteFile(trace, []byte(tc.trace), 0o644); err != nil {
				t.Fatal(err)
			}
			sc, err := scenario.ParseScenario("prod.yaml", []byte(fmt.Sprintf(`
name: prod
duration: 10m
containers: {capacity: 10}
models:
  - {name: m, streams: 5, ttft: 500ms, decode_rate: 100}
production:
  - {name: p, trace: %q, format: azure, model: m}
workload:
  accounts: 1
  projects_per_account: 1
  models: {hot: [m], hot_share: 1}
  behaviours:
    one: {turns: 1, fanout: 1, prompt_tokens: 20, output_tokens: 5, tool_seconds: 0}
`, trace)))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Execute(sc, RunSpec{Policy: "fixed-lane", Seed: 1})
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Execute: %v", err)
			case tc.wantErr != "" && err == nil:
				t.Fatalf("Execute returned no error, want one containing %q", tc.wantErr)
			case tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr):
				t.Fatalf("Execute: %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestProductionMinutesFromTheLog: each minute's p50 and p99 latency of
// production calls, recomputed from the event log (answer time − creation
// time of every production call, by the minute it was answered), match the
// stream's minute rows; and the recorder keeps no per-call latencies for a
// minute once it is past (a week of production keeps two numbers a minute).
func TestProductionMinutesFromTheLog(t *testing.T) {
	w := runLogged(t, productionScenario(t, 3600), "fixed-lane", 2)
	born := map[int64]Time{}
	byMinute := map[int][]float32{}
	for _, r := range w.Log() {
		switch {
		case r.Event == LogCallCreate && r.Job < 0:
			born[r.Call] = r.T
		case r.Event == LogCallAnswer && r.Job < 0:
			k := int(r.T / Minute)
			byMinute[k] = append(byMinute[k], float32((r.T - born[r.Call]).Seconds()))
		}
	}
	// Before anything reads the rows (which closes every minute).
	ms := w.rec.prod[0].minutes
	for k := 0; k < len(ms)-1; k++ {
		if ms[k].latencies != nil {
			t.Fatalf("minute %d of %d still holds %d latencies", k, len(ms), len(ms[k].latencies))
		}
	}
	rows := w.Production()[0].Minutes
	checked := 0
	for _, row := range rows {
		lats := byMinute[row.Minute]
		if int64(len(lats)) != row.Served {
			t.Fatalf("minute %d: %d answers in the log, %d served in the row", row.Minute, len(lats), row.Served)
		}
		var p50, p99 float64
		if len(lats) > 0 {
			slices.Sort(lats)
			p50 = float64(lats[int(math.Ceil(0.5*float64(len(lats))))-1])
			p99 = float64(lats[int(math.Ceil(0.99*float64(len(lats))))-1])
			checked++
		}
		if row.LatencyP50 != p50 || row.LatencyP99 != p99 {
			t.Errorf("minute %d: p50/p99 %g/%g, from the log %g/%g", row.Minute, row.LatencyP50, row.LatencyP99, p50, p99)
		}
	}
	if checked < 25 {
		t.Fatalf("only %d minutes with answers: the test needs a stream that runs", checked)
	}
}

// TestProductionMeteredLikeEvaluation: production calls ask for the
// max_tokens their trace record gives (else the stream's), are counted at
// it under output: max_tokens, have their output cut there, and draw their
// latency variation as evaluation calls do (lognormal CV 0.5: latencies
// of calls of equal size vary, with mean near the unloaded latency).
func TestProductionMeteredLikeEvaluation(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "prod.jsonl")
	var b strings.Builder
	type rec struct{ in, out, max int }
	var recs []rec
	for i := 0; i < 400; i++ {
		r := rec{in: 1000, out: 300}
		switch i % 3 {
		case 0:
			r.max = 800 // asks for more than it uses
		case 1:
			r.max = 200 // cut at 200
		}
		recs = append(recs, r)
		if r.max > 0 {
			fmt.Fprintf(&b, `{"timestamp": %d, "input_length": %d, "output_length": %d, "max_tokens": %d}`+"\n", i*1000, r.in, r.out, r.max)
		} else {
			fmt.Fprintf(&b, `{"timestamp": %d, "input_length": %d, "output_length": %d}`+"\n", i*1000, r.in, r.out)
		}
	}
	if err := os.WriteFile(trace, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.ParseScenario("prod.yaml", []byte(fmt.Sprintf(`
name: prod
duration: 10m
warmup: 0s
containers: {capacity: 1000, startup: 0s}
organisations: [{name: shared, tpm: 100000000, tpd: 1000000000000, output: max_tokens}]
models:
  - {name: m, org: shared, streams: 5000, ttft: 500ms, decode_rate: 100, jitter: {dist: lognormal, cv: 0.5}}
production:
  - {name: p, trace: %q, format: mooncake, model: m, max_tokens: 1000}
workload:
  accounts: 1
  projects_per_account: 1
  models: {hot: [m], hot_share: 1}
  behaviours:
    one: {turns: 1, fanout: 1, prompt_tokens: 2000, output_tokens: 500, tool_seconds: 0}
policies:
  fixed_lane: {global_cap: 1000}
`, trace)))
	if err != nil {
		t.Fatal(err)
	}
	w := runLogged(t, sc, "fixed-lane", 1)
	accepted := map[int64]Time{}
	var n int
	var lats []float64
	for _, r := range w.Log() {
		if r.Job >= 0 {
			continue
		}
		switch r.Event {
		case LogCallAccept:
			want := recs[n]
			maxOut := want.max
			if maxOut == 0 {
				maxOut = 1000 // the stream's
			}
			if r.CountIn != int32(want.in) || r.CountOut != int32(maxOut) {
				t.Fatalf("production call %d counted %d in, %d out; want %d and its max_tokens %d", n, r.CountIn, r.CountOut, want.in, maxOut)
			}
			if out := min(want.out, maxOut); r.Tokens != int32(want.in+out) {
				t.Fatalf("production call %d has %d tokens, want %d (output cut at max_tokens)", n, r.Tokens, want.in+out)
			}
			accepted[r.Call] = r.T
			n++
		case LogCallAnswer:
			if r.Tokens == 1300 { // the calls not cut: unloaded latency 0.5 + 300/100 s
				lats = append(lats, (r.T - accepted[r.Call]).Seconds())
			}
		}
	}
	if n != len(recs) {
		t.Fatalf("%d production accepts, want %d", n, len(recs))
	}
	// Telemetry in the meter's units: the TPD counted input + max_tokens,
	// and the real tokens beside it.
	var counted, real float64
	for _, r := range recs {
		maxOut := r.max
		if maxOut == 0 {
			maxOut = 1000
		}
		counted += float64(r.in + maxOut)
		real += float64(r.in + min(r.out, maxOut))
	}
	var got []results.QuotaUse
	for _, q := range w.QuotaUsage() {
		if q.Workload == "p" && q.Dimension == "tpd" {
			got = append(got, q)
		}
	}
	if len(got) != 1 || got[0].Used != counted || got[0].RealTokens != real {
		t.Errorf("production's TPD telemetry %+v; want used %g (what the quota counted), real tokens %g", got, counted, real)
	}
	mean := 0.0
	for _, l := range lats {
		mean += l / float64(len(lats))
	}
	if slices.Min(lats) > 3 || slices.Max(lats) < 4.5 || math.Abs(mean-3.5) > 0.35 {
		t.Errorf("latencies of 1,300-token calls: min %.2f, max %.2f, mean %.2f s; want drawn around 3.5 s", slices.Min(lats), slices.Max(lats), mean)
	}
}
