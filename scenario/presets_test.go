package scenario

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// orgNamed is the organisation of s named name.
func orgNamed(t *testing.T, s *Scenario, name string) *OrgConfig {
	t.Helper()
	for i := range s.Organisations {
		if s.Organisations[i].Name == name {
			return &s.Organisations[i]
		}
	}
	t.Fatalf("no organisation %q", name)
	return nil
}

// TestPresetsFillWhatIsUnset: an organisation on a preset takes the
// preset's rules where it sets none and keeps its own where it does; one
// with no preset keeps today's meter.
func TestPresetsFillWhatIsUnset(t *testing.T) {
	t.Chdir("..") // the scenario replays a trace named from the repository root
	sc, err := LoadScenario("embedded:anthropic-quota")
	if err != nil {
		t.Fatal(err)
	}
	a := orgNamed(t, sc, "anthropic")
	for _, d := range []int{DimRPM, DimITPM, DimOTPM} {
		if a.Meter(d) != MeterTokenBucket {
			t.Errorf("anthropic %s metered %s, want token_bucket", DimNames[d], a.Meter(d))
		}
	}
	if a.InputRule() != InputUncached || !a.Cache.On() ||
		a.Cache.Lifetime != 5*time.Minute || a.Cache.Write() != 1.25 || a.Cache.Read() != 0.1 {
		t.Errorf("anthropic rules %s, %s, cache %+v", a.InputRule(), a.OutputRule(), *a.Cache)
	}
	if o := orgNamed(t, sc, "openai"); !o.TodaysMeter() {
		t.Errorf("openai without a preset is not on today's meter: %+v", *o)
	}
	v, err := sc.Variant("window-scheduler")
	if err != nil {
		t.Fatal(err)
	}
	w := orgNamed(t, v.Scenario, "anthropic")
	if w.Meter(DimITPM) != MeterRolling || w.InputRule() != InputAll || w.OutputRule() != OutputActual || !w.Cache.On() {
		t.Errorf("overridden: %s, %s, %s, cache %v", w.Meter(DimITPM), w.InputRule(), w.OutputRule(), w.Cache.On())
	}
	old, err := sc.Variant("rules-2026-12-01")
	if err != nil {
		t.Fatal(err)
	}
	if o := orgNamed(t, old.Scenario, "anthropic"); o.OutputRule() != OutputReconciled || o.BurstOf(DimRPM) != time.Minute || o.Cache.Min() != 0 {
		t.Errorf("rules-2026-12-01: output %s, rpm burst %v, min_tokens %d", o.OutputRule(), o.BurstOf(DimRPM), o.Cache.Min())
	}
	if a.OutputRule() != OutputProduced || a.BurstOf(DimRPM) != time.Second {
		t.Errorf("anthropic today: output %s, rpm burst %v", a.OutputRule(), a.BurstOf(DimRPM))
	}
	h, err := sc.Variant("one-hour-cache")
	if err != nil {
		t.Fatal(err)
	}
	if c := orgNamed(t, h.Scenario, "anthropic").Cache; c.Lifetime != time.Hour || c.Write() != 2 || c.Read() != 0.1 {
		t.Errorf("one-hour cache: %+v", *c)
	}
	// Prices: a cache price left out is the input price × the factor.
	for i, name := range sc.Catalogue() {
		if name == "claude-opus-4.8" {
			if p := sc.ModelPrices(i); p.Input != 5 || p.CacheWrite != 6.25 || p.CacheRead != 0.5 || p.Output != 25 {
				t.Errorf("claude-opus-4.8 prices %+v", p)
			}
		}
	}
	if !sc.Billing() {
		t.Error("anthropic-quota does not bill")
	}
	plain, err := LoadScenario("embedded:light-load")
	if err != nil {
		t.Fatal(err)
	}
	if plain.Billing() {
		t.Error("light-load bills: its outputs would change")
	}
	for i := range plain.Organisations {
		if !plain.Organisations[i].TodaysMeter() {
			t.Errorf("light-load %s is not on today's meter", plain.Organisations[i].Name)
		}
	}
}

// presetView is what a preset set on an organisation with only tpm (and
// itpm/otpm) given, as the tests read it.
type presetView struct {
	Meters         [NumDims]MeterKind
	Burst          [NumDims]time.Duration
	RPM            float64
	Input          InputCount
	Output         OutputCount
	CountsRejected bool
	Lifetime       time.Duration
	Write, Read    float64
	Min            int
}

// TestPresetVersions: each preset, undated and dated, against the rules
// its providers' pages state (written out here from the pages, not from
// presetVersions).
func TestPresetVersions(t *testing.T) {
	minute, day := time.Minute, 24*time.Hour
	spans := [NumDims]time.Duration{minute, minute, day, day, minute, minute}
	all := func(k MeterKind) (m [NumDims]MeterKind) {
		for d := range m {
			m[d] = k
		}
		return m
	}
	burst := func(d int, b time.Duration) [NumDims]time.Duration {
		s := spans
		s[d] = b
		return s
	}
	oldAnthropic := presetView{Meters: all(MeterTokenBucket), Burst: spans, Input: InputUncached, Output: OutputReconciled, Lifetime: 5 * minute, Write: 1.25, Read: 0.1}
	newAnthropic := presetView{Meters: all(MeterTokenBucket), Burst: burst(DimRPM, time.Second), Input: InputUncached, Output: OutputProduced, Lifetime: 5 * minute, Write: 1.25, Read: 0.1, Min: 1024}
	oldOpenAI := presetView{Meters: all(MeterRolling), Burst: spans, Input: InputAll, Output: OutputMaxTokens, Lifetime: 5 * minute, Write: 1, Read: 0.1}
	newOpenAI := presetView{Meters: all(MeterRolling), Burst: burst(DimRPM, time.Second), Input: InputAll, Output: OutputMaxTokens, CountsRejected: true, Lifetime: day, Write: 1, Read: 0.1, Min: 1024}
	oldAzure := presetView{Meters: all(MeterRolling), Burst: spans, Input: InputAll, Output: OutputMaxTokens, Lifetime: 5 * minute, Write: 1, Read: 0.1}
	// 6 RPM per 1,000 TPM: 300,000 TPM → 1,800 RPM.
	newAzure := presetView{Meters: all(MeterFixed), Burst: burst(DimRPM, 10*time.Second), RPM: 1800, Input: InputAll, Output: OutputMaxTokens, Lifetime: 5 * minute, Write: 1, Read: 0.1, Min: 1024}
	for _, c := range []struct {
		preset string
		want   presetView
	}{
		{"anthropic", newAnthropic},
		{"anthropic@2026-12-06", newAnthropic},
		{"anthropic@2027-01", newAnthropic},
		{"anthropic@2026-12-05", oldAnthropic},
		{"anthropic@2025-06", oldAnthropic},
		{"anthropic@2026-12", newAnthropic}, // a month compares as its last day
		{"openai", newOpenAI},
		{"openai@2025-06", oldOpenAI},
		{"azure-openai", newAzure},
		{"azure-openai@2026-12-01", oldAzure},
	} {
		t.Run(c.preset, func(t *testing.T) {
			var p Preset
			if err := p.UnmarshalText([]byte(c.preset)); err != nil {
				t.Fatal(err)
			}
			if b, _ := p.MarshalText(); string(b) != c.preset {
				t.Errorf("written back as %q", b)
			}
			o := OrgConfig{Name: "o", Preset: p, TPM: 300_000}
			o.applyPreset()
			got := presetView{RPM: o.RPM, Input: o.InputRule(), Output: o.OutputRule(), CountsRejected: o.CountsRejected(),
				Lifetime: o.Cache.Lifetime, Write: o.Cache.Write(), Read: o.Cache.Read(), Min: o.Cache.Min()}
			for d := range got.Meters {
				got.Meters[d], got.Burst[d] = o.Meter(d), o.BurstOf(d)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, bad := range []string{"anthropic@2026-13", "anthropic@yesterday", "anthropik"} {
		var p Preset
		if err := p.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// A key the organisation sets wins over the preset's.
	var p Preset
	if err := p.UnmarshalText([]byte("azure-openai")); err != nil {
		t.Fatal(err)
	}
	off := false
	o := OrgConfig{Preset: p, TPM: 300_000, RPM: 50, Burst: map[string]time.Duration{"rpm": time.Minute}, CountRejected: &off,
		Cache: &CacheConfig{ReadFactor: ptrTo(0.0), MinTokens: ptrTo(0)}}
	o.applyPreset()
	if o.RPM != 50 || o.BurstOf(DimRPM) != time.Minute || o.CountsRejected() || o.Cache.Read() != 0 || o.Cache.Min() != 0 {
		t.Errorf("the organisation's own keys lost: rpm %g, burst %v, count_rejected %v, read_factor %g, min_tokens %d",
			o.RPM, o.BurstOf(DimRPM), o.CountsRejected(), o.Cache.Read(), o.Cache.Min())
	}
}

// TestPresetCitations: every rule a preset version sets cites a page, a
// date read (on or before the version's date) and what the page says, and
// every cite is of a rule the version sets.
func TestPresetCitations(t *testing.T) {
	for _, v := range presetVersions {
		cited := map[string]bool{}
		for _, c := range v.cites {
			if !strings.HasPrefix(c.page, "https://") || c.says == "" || c.read == "" || c.read > v.read {
				t.Errorf("%s@%s: rule %s cites %q read %q: %q", v.provider, v.read, c.rule, c.page, c.read, c.says)
			}
			if !v.rules.set(c.rule) {
				t.Errorf("%s@%s cites %s, which it does not set", v.provider, v.read, c.rule)
			}
			cited[c.rule] = true
		}
		for _, k := range presetRuleKeys {
			if v.rules.set(k) && !cited[k] {
				t.Errorf("%s@%s sets %s without citing a page", v.provider, v.read, k)
			}
		}
	}
}

const (
	presetDocBegin = "<!-- preset-tables:begin (generated by scenario.PresetTables; go test ./scenario -run TestPresetTablesInDocs -update) -->\n"
	presetDocEnd   = "<!-- preset-tables:end -->"
)

// TestPresetTablesInDocs: docs/concepts/quotas.md's preset tables are
// PresetTables' output; -update rewrites them.
func TestPresetTablesInDocs(t *testing.T) {
	const path = "../docs/concepts/quotas.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, presetDocBegin), strings.Index(doc, presetDocEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no generated preset tables between %q and %q", path, presetDocBegin, presetDocEnd)
	}
	got, want := doc[i+len(presetDocBegin):j], PresetTables()
	if *update {
		if err := os.WriteFile(path, []byte(doc[:i+len(presetDocBegin)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s's preset tables drifted from the presets (run with -update) (-want +got):\n%s", path, diff)
	}
}

// TestZeroIsAValue: a 0 the checks accept is kept, not read as unset
// (sigma: 0 completes every batch request at the median; read_factor: 0
// is a free read).
func TestZeroIsAValue(t *testing.T) {
	var b BatchConfig
	if err := yaml.Unmarshal([]byte("{preset: anthropic, sigma: 0}"), &b); err != nil {
		t.Fatal(err)
	}
	b.applyDefaults()
	if err := b.validate("batch"); err != nil || b.SigmaValue() != 0 {
		t.Errorf("sigma: 0 became %g (%v)", b.SigmaValue(), err)
	}
	var unset BatchConfig
	unset.applyDefaults()
	if unset.SigmaValue() != 1 {
		t.Errorf("unset sigma is %g, want the default 1", unset.SigmaValue())
	}
	var o OrgConfig
	if err := yaml.Unmarshal([]byte("{name: o, preset: anthropic, cache: {read_factor: 0, write_factor: 0, min_tokens: 0}}"), &o); err != nil {
		t.Fatal(err)
	}
	o.applyPreset()
	if o.Cache.Read() != 0 || o.Cache.Write() != 0 || o.Cache.Min() != 0 {
		t.Errorf("cache zeros became read %g, write %g, min %d", o.Cache.Read(), o.Cache.Write(), o.Cache.Min())
	}
}
