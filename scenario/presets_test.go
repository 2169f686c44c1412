package scenario

import (
	"testing"
	"time"
)

// TestPresetsFillWhatIsUnset: an organisation on a preset takes the
// preset's rules where it sets none and keeps its own where it does; one
// with no preset keeps today's meter.
func TestPresetsFillWhatIsUnset(t *testing.T) {
	t.Chdir("..") // the scenario replays a trace named from the repository root
	sc, err := LoadScenario("embedded:anthropic-quota")
	if err != nil {
		t.Fatal(err)
	}
	org := func(s *Scenario, name string) *OrgConfig {
		for i := range s.Organisations {
			if s.Organisations[i].Name == name {
				return &s.Organisations[i]
			}
		}
		t.Fatalf("no organisation %q", name)
		return nil
	}
	a := org(sc, "anthropic")
	for _, d := range []int{DimRPM, DimITPM, DimOTPM} {
		if a.Meter(d) != MeterTokenBucket {
			t.Errorf("anthropic %s metered %s, want token_bucket", DimNames[d], a.Meter(d))
		}
	}
	if a.InputRule() != InputUncached || a.OutputRule() != OutputReconciled || !a.Cache.On() ||
		a.Cache.Lifetime != 5*time.Minute || a.Cache.WriteFactor != 1.25 || a.Cache.ReadFactor != 0.1 {
		t.Errorf("anthropic rules %s, %s, cache %+v", a.InputRule(), a.OutputRule(), *a.Cache)
	}
	if o := org(sc, "openai"); !o.TodaysMeter() {
		t.Errorf("openai without a preset is not on today's meter: %+v", *o)
	}
	v, err := sc.Variant("window-scheduler")
	if err != nil {
		t.Fatal(err)
	}
	w := org(v.Scenario, "anthropic")
	if w.Meter(DimITPM) != MeterRolling || w.InputRule() != InputAll || w.OutputRule() != OutputActual || !w.Cache.On() {
		t.Errorf("overridden: %s, %s, %s, cache %v", w.Meter(DimITPM), w.InputRule(), w.OutputRule(), w.Cache.On())
	}
	h, err := sc.Variant("one-hour-cache")
	if err != nil {
		t.Fatal(err)
	}
	if c := org(h.Scenario, "anthropic").Cache; c.Lifetime != time.Hour || c.WriteFactor != 2 || c.ReadFactor != 0.1 {
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
