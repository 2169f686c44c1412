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
			`{"model":"m","disturbance":"start","at_s":0,"settled_limit":3,"time_to_band_s":-1,"overshoot":0,"oscillation":0}`},
		{"burst", Disturbance{Kind: DisturbanceBurst, At: time.Hour},
			`{"t_s":3600,"label":"burst@1h0m0s"}`,
			`{"model":"m","disturbance":"burst@1h0m0s","at_s":3600,"settled_limit":3,"time_to_band_s":-1,"overshoot":0,"oscillation":0}`},
		{"capacity event", Disturbance{Kind: "outage", At: 2*time.Hour + 1500*time.Millisecond, Model: "gpt-5.5"},
			`{"t_s":7201.5,"label":"outage@2h0m1.5s:gpt-5.5"}`,
			`{"model":"m","disturbance":"outage@2h0m1.5s:gpt-5.5","at_s":7201.5,"settled_limit":3,"time_to_band_s":-1,"overshoot":0,"oscillation":0}`},
		{"kind and model with separators", Disturbance{Kind: "a@b", At: time.Minute, Model: "org:model@x"},
			`{"t_s":60,"label":"a@b@1m0s:org:model@x"}`,
			`{"model":"m","disturbance":"a@b@1m0s:org:model@x","at_s":60,"settled_limit":3,"time_to_band_s":-1,"overshoot":0,"oscillation":0}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.d)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.json, string(got)); diff != "" {
				t.Errorf("Disturbance JSON (-want +got):\n%s", diff)
			}
			var back Disturbance
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.d, back); diff != "" {
				t.Errorf("Disturbance read back (-want +got):\n%s", diff)
			}
			row := ConvergenceRow{Model: "m", Disturbance: tc.d, Settled: 3, TimeToBand: -1}
			got, err = json.Marshal(row)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.row, string(got)); diff != "" {
				t.Errorf("ConvergenceRow JSON (-want +got):\n%s", diff)
			}
			var rowBack ConvergenceRow
			if err := json.Unmarshal(got, &rowBack); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(row, rowBack); diff != "" {
				t.Errorf("ConvergenceRow read back (-want +got):\n%s", diff)
			}
		})
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
