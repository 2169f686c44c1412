package sim

import (
	"testing"

	"github.com/evalsched/lab/scenario"
)

// presetProvider is the provider of a one-model scenario whose
// organisation is org (YAML flow map).
func presetProvider(t *testing.T, org string) Provider {
	t.Helper()
	sc, err := scenario.ParseScenario("p.yaml", []byte(`
name: p
duration: 10m
containers: {capacity: 10}
organisations: [`+org+`]
models: [{name: m, org: o, streams: 10, ttft: 1s, decode_rate: 50}]
workload:
  accounts: 1
  projects_per_account: 1
  models: {hot: [m], hot_share: 1}
  behaviours:
    one: {turns: 1, fanout: 1, prompt_tokens: 100, output_tokens: 10, tool_seconds: 0}
`))
	if err != nil {
		t.Fatal(err)
	}
	return newProvider(sc, sc.ModelConfigs())
}

// TestPresetDocumentedExamples: each preset's rules against its
// provider's own worked example.
func TestPresetDocumentedExamples(t *testing.T) {
	small := callTokens{in: 10, out: 1}
	// Azure (Microsoft's answer, read 2026-12-06): a 20,000-TPM deployment
	// gets 120 RPM (6 per 1,000 TPM), and its x-ratelimit-limit-requests
	// is 20: 20 requests in a 10-second window; the 21st waits for the
	// next window.
	az := presetProvider(t, `{name: o, preset: azure-openai, tpm: 20000}`)
	if l := az.orgs[0].limit(scenario.DimRPM); l != 20 {
		t.Errorf("azure-openai at 20,000 TPM: an RPM window of %g requests, want 20 (120 RPM over 10 s)", l)
	}
	for i := 0; i < 20; i++ {
		if v, _, _, _ := az.offer(&az.models[0], 0, Time(i)*Millisecond, small, srcProd); v != accepted {
			t.Fatalf("azure-openai: request %d of 20 in the first 10 s refused", i+1)
		}
	}
	if v, wait, _, _ := az.offer(&az.models[0], 0, 20*Millisecond, small, srcProd); v != rejected429 || wait != 10*Second-20*Millisecond {
		t.Errorf("azure-openai: the 21st request in 10 s: %v, retry after %v; want a 429 until the window resets at 10 s", v, wait)
	}
	// Anthropic (read 2026-12-06): "60 RPM may be enforced as 1 request
	// per second": a bucket of 1 request refilled at 1 a second.
	an := presetProvider(t, `{name: o, preset: anthropic, rpm: 60}`)
	if v, _, _, _ := an.offer(&an.models[0], 0, 0, small, srcProd); v != accepted {
		t.Fatal("anthropic: the first request refused")
	}
	if v, wait, _, _ := an.offer(&an.models[0], 0, 1, small, srcProd); v != rejected429 || wait != Second-1 {
		t.Errorf("anthropic at 60 RPM: a second request a microsecond later: %v, retry after %v; want a 429 for the rest of the second", v, wait)
	}
	if v, _, _, _ := an.offer(&an.models[0], 0, Second, small, srcProd); v != accepted {
		t.Error("anthropic at 60 RPM: the request a second later refused")
	}
	// Anthropic: output evaluated as produced, max_tokens not factored: a
	// call asking for 8,000 tokens under a 1,000-OTPM bucket is let in.
	ao := presetProvider(t, `{name: o, preset: anthropic, rpm: 1000, itpm: 100000, otpm: 1000}`)
	if v, _, _, _ := ao.offer(&ao.models[0], 0, 0, callTokens{in: 100, out: 500, maxOut: 8000}, srcProd); v != accepted {
		t.Error("anthropic: a call with max_tokens 8,000 above the 1,000 OTPM refused")
	}
	// OpenAI (read 2026-12-06): unsuccessful requests count toward the
	// per-minute limit: at 60 RPM (1 a second), a refused try is burned.
	oa := presetProvider(t, `{name: o, preset: openai, rpm: 60}`)
	oa.offer(&oa.models[0], 0, 0, small, srcProd)
	if v, _, burned, _ := oa.offer(&oa.models[0], 0, 1, small, srcProd); v != rejected429 || !burned {
		t.Errorf("openai: a refused try: %v, burned %v; want a 429 counted against RPM", v, burned)
	}
}
