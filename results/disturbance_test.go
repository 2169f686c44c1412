package results

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestDisturbanceJSON: a disturbance is written by its label, as before it
// was a struct, and read back from that form.
func TestDisturbanceJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    Disturbance
		json string // runs[].disturbances form
		row  string // a convergence row's form
	}{
		{"start", Disturbance{Kind: DisturbanceStart},
			`{"t_s":0,"label":"start"}`,
			`{"model":"m","disturbance":"start","at_s":0,"settled_limit":3,"time_to_band_s":-1,"overshoot":0,"oscillation":0,"time_to_capacity_s":0,"settling_time_s":0,"reversals_per_hour":0,"depth_err_mean":0,"depth_err_p90":0}`},
		{"burst", Disturbance{Kind: DisturbanceBurst, At: time.Hour},
			`{"t_s":3600,"label":"burst@1h0m0s"}`,
			`{"model":"m","disturbance":"burst@1h0m0s","at_s":3600,"settled_limit":3,"time_to_band_s":-1,"overshoot":0,"oscillation":0,"time_to_capacity_s":0,"settling_time_s":0,"reversals_per_hour":0,"depth_err_mean":0,"depth_err_p90":0}`},
		{"capacity event", Disturbance{Kind: "outage", At: 2*time.Hour + 1500*time.Millisecond, Model: "gpt-5.5"},
			`{"t_s":7201.5,"label":"outage@2h0m1.5s:gpt-5.5"}`,
			`{"model":"m","disturbance":"outage@2h0m1.5s:gpt-5.5","at_s":7201.5,"settled_limit":3,"time_to_band_s":-1,"overshoot":0,"oscillation":0,"time_to_capacity_s":0,"settling_time_s":0,"reversals_per_hour":0,"depth_err_mean":0,"depth_err_p90":0}`},
		{"kind and model with separators", Disturbance{Kind: "a@b", At: time.Minute, Model: "org:model@x"},
			`{"t_s":60,"label":"a@b@1m0s:org:model@x"}`,
			`{"model":"m","disturbance":"a@b@1m0s:org:model@x","at_s":60,"settled_limit":3,"time_to_band_s":-1,"overshoot":0,"oscillation":0,"time_to_capacity_s":0,"settling_time_s":0,"reversals_per_hour":0,"depth_err_mean":0,"depth_err_p90":0}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jsonRoundTrip(t, tc.d, tc.json)
			jsonRoundTrip(t, ConvergenceRow{Model: "m", Disturbance: tc.d, Settled: 3, TimeToBand: -1}, tc.row)
		})
	}
}

// jsonRoundTrip checks that v marshals to want and reads back as v.
func jsonRoundTrip[T any](t *testing.T, v T, want string) {
	t.Helper()
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("%T JSON (-want +got):\n%s", v, diff)
	}
	var back T
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(v, back); diff != "" {
		t.Errorf("%T read back (-want +got):\n%s", v, diff)
	}
}

// TestParseDisturbanceFreeLabel: a label without an instant keeps the
// instant given beside it.
func TestParseDisturbanceFreeLabel(t *testing.T) {
	for _, tc := range []struct {
		label string
		t     float64
		want  Disturbance
	}{
		{"cut", 20, Disturbance{Kind: "cut", At: 20 * time.Second}},
		{"start", 0, Disturbance{Kind: DisturbanceStart}},
		{"x@notaduration", 1.5, Disturbance{Kind: "x@notaduration", At: 1500 * time.Millisecond}},
	} {
		t.Run(tc.label, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ParseDisturbance(tc.label, tc.t)); diff != "" {
				t.Errorf("ParseDisturbance(%q, %g) (-want +got):\n%s", tc.label, tc.t, diff)
			}
		})
	}
}
