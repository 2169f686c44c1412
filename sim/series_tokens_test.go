package sim

import (
	"fmt"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/google/go-cmp/cmp"
)

// tokenScenario is one organisation under preset with a daily token quota
// (so summary.json carries its telemetry) and two models, every job one
// agent of three turns of one call each, asking max_tokens 4,000 for 500
// tokens of output; the run's end (5m 7s) falls between two series
// samples, so calls answered after the last sample need the tail rows.
func tokenScenario(t *testing.T, preset string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.ParseScenario("tokens.yaml", []byte(fmt.Sprintf(`
name: tokens
duration: 5m7s
warmup: 0s
series_interval: 10s
containers: {capacity: 1000, startup: 0s}
organisations: [{name: o, preset: %s, rpm: 1000000, tpm: 1000000000, itpm: 1000000000, otpm: 1000000000, tpd: 1000000000000}]
models:
  - {name: a, org: o, streams: 5000, ttft: 500ms, decode_rate: 100}
  - {name: b, org: o, streams: 5000, ttft: 500ms, decode_rate: 100}
workload:
  batches: {rate_per_hour: 1200, size: 2}
  accounts: 1
  projects_per_account: 1
  models: {hot: [a, b], hot_share: 1}
  behaviours:
    agent: {turns: 3, fanout: 1, prompt_tokens: 2000, output_tokens: 500, tool_tokens: 300, tool_seconds: 2, max_tokens: 4000}
policies:
  fixed_lane: {global_cap: 1000}
`, preset)))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestSeriesTokensAddUpToTelemetry (I14): series.csv's counted_tokens and
// real_tokens are what each model's evaluation calls counted in its
// organisation's quota, and their real tokens, since its previous row.
// Checked three ways: per row against a scan of the event log (accepts
// and answers between two samples); per call against the preset's rule
// worked out by hand (openai: input + max_tokens at admission, never
// corrected; anthropic: cache reads left out of the input, output counted
// when produced); and summed over the rows against summary.json's
// quota[].used and real_tokens.
func TestSeriesTokensAddUpToTelemetry(t *testing.T) {
	for _, tc := range []struct {
		preset string
		// accepted is what a call counts when accepted, from its real
		// input and cache read (max_tokens 4,000); answered what it adds
		// when answered (its output is 500).
		accepted func(in, read int32) int32
		answered int32
	}{
		{"openai", func(in, read int32) int32 { return in + 4000 }, 0},
		{"anthropic", func(in, read int32) int32 { return in - read }, 500},
	} {
		t.Run(tc.preset, func(t *testing.T) {
			w := runLogged(t, tokenScenario(t, tc.preset), "fixed-lane", 5)
			type pair struct{ counted, real float64 }
			pending := map[int32]pair{} // per model, since its last row
			var want []results.SeriesRow
			var total pair
			read, accepts := int32(0), 0
			for _, r := range w.Log() {
				if r.Job < 0 && r.Event != LogSample {
					continue
				}
				switch r.Event {
				case LogCallAccept:
					p := pending[r.Model]
					p.counted += float64(r.CountIn + r.CountOut)
					p.real += float64(r.Tokens)
					pending[r.Model] = p
					read += r.CacheRead
					accepts++
				case LogCallAnswer:
					p := pending[r.Model]
					p.counted += float64(r.CountOut)
					pending[r.Model] = p
				case LogSample:
					for m := int32(0); m < 2; m++ {
						if p := pending[m]; p != (pair{}) {
							want = append(want, results.SeriesRow{T: r.T.Seconds(), Model: m, CountedTokens: p.counted, RealTokens: p.real})
							total.counted += p.counted
							total.real += p.real
						}
					}
					clear(pending)
				}
			}
			for m := int32(0); m < 2; m++ {
				if p := pending[m]; p != (pair{}) {
					want = append(want, results.SeriesRow{T: 307, Model: m, CountedTokens: p.counted, RealTokens: p.real})
					total.counted += p.counted
					total.real += p.real
				}
			}
			if accepts < 100 {
				t.Fatalf("%d calls accepted: too few to test", accepts)
			}
			if len(want) < 50 || pending[0] == (pair{}) {
				t.Fatalf("%d rows with tokens, none counted after the last sample: too few to test", len(want))
			}
			if tc.preset == "anthropic" && read == 0 {
				t.Fatal("no cache reads: the rule that leaves them out is not exercised")
			}
			// Per call, by hand: what the rule counts, and that it differs
			// from the real tokens. Every call's output is 500 (below its
			// max_tokens), so its input is the rest of its tokens.
			var handCounted, handReal float64
			for _, r := range w.Log() {
				switch {
				case r.Job >= 0 && r.Event == LogCallAccept:
					handCounted += float64(tc.accepted(r.Tokens-500, r.CacheRead))
					handReal += float64(r.Tokens)
				case r.Job >= 0 && r.Event == LogCallAnswer:
					handCounted += float64(tc.answered)
				}
			}
			var got []results.SeriesRow
			for _, r := range w.Series() {
				if r.CountedTokens != 0 || r.RealTokens != 0 {
					got = append(got, results.SeriesRow{T: r.T, Model: r.Model, CountedTokens: r.CountedTokens, RealTokens: r.RealTokens})
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("series rows' tokens against the event log (-want +got):\n%s", diff)
			}
			if total.counted != handCounted || total.real != handReal || handCounted == handReal {
				t.Errorf("rows counted %g of %g real tokens; by the %s rule by hand %g of %g (they must differ)",
					total.counted, total.real, tc.preset, handCounted, handReal)
			}
			var tel []results.QuotaUse
			for _, q := range w.QuotaUsage() {
				if q.Dimension == "tpd" {
					tel = append(tel, q)
				}
			}
			wantTel := []results.QuotaUse{{Workload: results.EvaluationWorkload, Org: "o", Dimension: "tpd",
				Used: total.counted, RealTokens: total.real, Quota: 1e12, Share: total.counted / 1e12}}
			if diff := cmp.Diff(wantTel, tel); diff != "" {
				t.Errorf("summary's tpd telemetry against the rows' sums (-want +got):\n%s", diff)
			}
		})
	}
}

// checkSeriesTokens is I14 on any run (TestRandomScenarios): the series
// rows' counted_tokens and real_tokens add up to what the event log says
// the evaluation calls counted (accepts and answers) and their real
// tokens, and to the run's quota telemetry (every organisation, with a
// daily quota or not).
func checkSeriesTokens(t *testing.T, w *World) {
	t.Helper()
	var rows, log, tel [2]float64
	for _, r := range w.Series() {
		rows[0] += r.CountedTokens
		rows[1] += r.RealTokens
	}
	for _, r := range w.Log() {
		if r.Job < 0 || r.Org < 0 {
			continue
		}
		switch r.Event {
		case LogCallAccept:
			log[0] += float64(r.CountIn + r.CountOut)
			log[1] += float64(r.Tokens)
		case LogCallAnswer:
			log[0] += float64(r.CountOut)
		}
	}
	for o := range w.rec.quota.use[0] {
		tel[0] += w.rec.quota.use[0][o][1]
		tel[1] += w.rec.quota.use[0][o][2]
	}
	if rows != log || rows != tel {
		t.Errorf("series rows' counted and real tokens %v; the event log's %v, the telemetry's %v", rows, log, tel)
	}
}
