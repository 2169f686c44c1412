package predict

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestProviderShareByFold: the provider share that turns a replayed
// call's hold into provider time is fitted per fold, without the call's
// own sample. Ten samples of two free calls each, hold 10 s, provider
// time 10·(0.5 + 0.04·i) s for sample i; five folds, sample i in fold
// i mod 5. Over all calls: 136/200 = 0.68. Without samples 0 and 5:
// (136 − 10 − 14)/160 = 0.70; without 4 and 9: (136 − 13.2 − 17.2)/160
// = 0.66; without 2 and 7: (136 − 11.6 − 15.6)/160 = 0.68.
func TestProviderShareByFold(t *testing.T) {
	var calls []obs
	for i := range 10 {
		for range 2 {
			calls = append(calls, obs{sample: i, in: 100, out: 50, lat: 10, provider: 10 * (0.5 + 0.04*float64(i)), free: true})
		}
	}
	f, err := fitLatency("m", calls, 5, false)
	if err != nil {
		t.Fatal(err)
	}
	got := []float64{f.ProviderShare, f.shareFor(0), f.shareFor(5), f.shareFor(4), f.shareFor(9), f.shareFor(2)}
	want := []float64{0.68, 0.70, 0.70, 0.66, 0.66, 0.68}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); d != "" {
		t.Errorf("shares: overall, then samples 0, 5, 4, 9, 2 (-want +got):\n%s", d)
	}
}

// TestNegativeInterceptRefused: a form whose fit has a negative intercept
// is refused as one with a negative slope is. Ten samples of two calls,
// output 100·(i+1) tokens and latency exactly 0.02·output − 1 s (1, 3,
// …, 19 s): a + c·out fits them with a = −1, so the fit falls back to
// the mean, (1 + 3 + … + 19)/10 = 10 s.
func TestNegativeInterceptRefused(t *testing.T) {
	var calls []obs
	for i := range 10 {
		for j := range 2 {
			out := 100 * float64(i+1)
			calls = append(calls, obs{sample: i, in: 100 + 37*float64(j) + 11*float64(i%3), out: out, lat: 0.02*out - 1, provider: 0.02*out - 1})
		}
	}
	f, err := fitLatency("m", calls, 5, false)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Form string
		Coef [3]float64
	}
	if d := cmp.Diff(got{"mean", [3]float64{10, 0, 0}}, got{f.Form, f.Coef}, cmpopts.EquateApprox(0, 1e-9)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for k, fm := range f.folds {
		if fm.coef[0] < 0 {
			t.Errorf("fold %d: intercept %g < 0", k, fm.coef[0])
		}
	}
}
