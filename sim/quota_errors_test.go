package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evalsched/lab/scenario"
	"github.com/google/go-cmp/cmp"
)

// TestQuotaKeysBadInput breaks each key added for quotas, isolation,
// guards, alerts and production generators in the incident scenario, and
// wants the error at the file and line of the broken text.
func TestQuotaKeysBadInput(t *testing.T) {
	base, err := scenario.EmbeddedYAML("incident-0214")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, old, new, want string }{
		{"clock", "clock: 2h", "clock: 200h", "clock: must be in [0, 168h)"},
		{"daily_reset", "count_rejected: true", "count_rejected: true\n    daily_reset: 25h", "organisations[0].daily_reset: must be a time of day in [0, 24h), got 25h0m0s"},
		{"count_rejected", "count_rejected: true", "count_rejected: 3", "organisations[0].count_rejected: want true or false"},
		{"admission", "    admission: under_limit", "    admission: whenever", "organisations[0].admission: unknown \"whenever\" (want fit or under_limit)"},
		{"history tokens", "tokens: 8640000", "tokens: -1", "organisations[0].history.tokens: must be a whole number in [0, 1e+15], got -1"},
		{"history fractional", "requests: 7200", "requests: 7200.5", "organisations[0].history.requests: must be a whole number in [0, 1e+15], got 7200.5"},
		{"history past exact", "tokens: 8640000", "tokens: 1e16", "organisations[0].history.tokens: must be a whole number in [0, 1e+15], got 1e+16"},
		{"history hourly", "hourly: &day [0.3,", "hourly: &day [-1,", "organisations[0].history.hourly[0]: must be >= 0 and finite, got -1"},
		{"history unknown", "requests: 7200", "requests: 7200\n      minutes: 3", "organisations[0].history.minutes: unknown field"},
		{"alert share", "alert: {share: 0.7}", "alert: {share: 1.5}", "alert.share: must be in (0, 1]"},
		{"depth_signal", "gateway:\n  retry:", "gateway:\n  depth_signal: deep\n  retry:", "gateway.depth_signal: unknown \"deep\" (want held or queued)"},
		{"eval_org", "decode_rate: 60}", "decode_rate: 60, eval_org: nowhere}", "models[0].eval_org: unknown organisation \"nowhere\""},
		{"eval_key", "decode_rate: 60}", "decode_rate: 60, eval_key: nokey}", "models[0].eval_key: unknown key \"nokey\" (declare it under keys)"},
		{"rate_per_hour", "rate_per_hour: 300", "rate_per_hour: -1", "production[0].rate_per_hour: must be > 0 (calls per hour), got -1"},
		{"prompt_tokens", "prompt_tokens: 1000", "prompt_tokens: {dist: weird}", "production[0].prompt_tokens"},
		{"production retry", "max: 2s, multiplier: 2", "max: 2s, multiplier: 0.5", "production[0].retry.multiplier: must be >= 1, got 0.5"},
		{"outage_threshold", "model: prod-model\n    rate_per_hour", "model: prod-model\n    outage_threshold: 2\n    rate_per_hour", "production[0].outage_threshold: must be in [0, 1], got 2"},
		{"guards max_jobs", "    lanes: {prod-model: 50}\n", "    lanes: {prod-model: 50}\n  guards: {max_jobs: -1}\n", "policies.guards.max_jobs: must be >= 0 (0 = no cap), got -1"},
		{"breaker close", "    lanes: {prod-model: 50}\n", "    lanes: {prod-model: 50}\n  guards: {breaker: {open: 0.5, close: 0.8}}\n", "policies.guards.breaker.close: must be in (0, open=0.5], got 0.8"},
		{"reject_lower_after", "    lanes: {prod-model: 50}\n", "    lanes: {prod-model: 50}\n  scheduler: {reject_lower_after: -2}\n", "policies.scheduler.reject_lower_after: must be >= 1 tick, got -2"},
		{"job_rate_hold", "    lanes: {prod-model: 50}\n", "    lanes: {prod-model: 50}\n  scheduler: {job_rate_hold: -5m}\n", "policies.scheduler.job_rate_hold: must be >= 0, got -5m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := string(base)
			at := strings.Index(text, tc.old)
			if at < 0 {
				t.Fatalf("%q not in the scenario text", tc.old)
			}
			text = text[:at] + tc.new + text[at+len(tc.old):]
			// The line of the broken key: the first line of the new text
			// that differs from the old, counted independently of the loader.
			line := strings.Count(text[:at], "\n") + 1
			newLines, oldLines := strings.Split(tc.new, "\n"), strings.Split(tc.old, "\n")
			for i := range newLines {
				if i >= len(oldLines) || newLines[i] != oldLines[i] {
					line += i
					break
				}
			}
			_, err := scenario.ParseScenario("incident.yaml", []byte(text))
			if err == nil {
				t.Fatal("accepted")
			}
			want := fmt.Sprintf("incident.yaml:%d: %s", line, tc.want)
			if got := err.Error(); !strings.HasPrefix(got, want) {
				t.Errorf("error (-want +got):\n%s", cmp.Diff(want, got))
			}
		})
	}
}
