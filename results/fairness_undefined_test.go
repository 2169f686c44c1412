package results

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJainUndefined: with no fairness window holding two backlogged
// projects Jain's index is undefined: nil, null in JSON and "-" in text
// (it was 0, printed 0.00 and read by gate and tune as a real 0 though the
// index is never below 1/n). Expectations by hand: one lane-window of
// Jain 0.5 over 4 admissions gives 0.5; one window of two backlogged
// projects at 0.8 gives a cross-lane mean of 0.8.
func TestJainUndefined(t *testing.T) {
	type got struct{ PerLane, Tokens, Cross, Text, Lane string }
	for _, tc := range []struct {
		name    string
		windows []FairnessWindow
		want    got
	}{
		{"no window", nil, got{"null", "null", "null", "-", "none"}},
		{"one project backlogged", []FairnessWindow{{Backlogged: 1, JainCrossLane: 1}}, got{"null", "null", "null", "-", "none"}},
		{"a lane-window without admissions", []FairnessWindow{{Backlogged: 1, Lanes: []LaneWindow{{Model: "m", Admitted: 0, Jain: 1, JainTokens: 1}}}},
			got{"null", "null", "null", "-", "null null"}},
		{"measured", []FairnessWindow{{Backlogged: 2, JainCrossLane: 0.8, Lanes: []LaneWindow{{Model: "m", Admitted: 4, Jain: 0.5, JainTokens: 0.25}}}},
			got{"0.5", "0.25", "0.8", "0.50", "0.5 0.25"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := summarizeFairness(FairnessData{Windows: tc.windows})
			js := func(v *float64) string { b, _ := json.Marshal(v); return string(b) }
			lane := "none"
			if len(f.Lanes) > 0 {
				lane = js(f.Lanes[0].Jain) + " " + js(f.Lanes[0].JainTokens)
			}
			g := got{js(f.JainPerLane), js(f.JainPerLaneTokens), js(f.JainCrossLane), JainText(f.JainPerLane), lane}
			if diff := cmp.Diff(tc.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
