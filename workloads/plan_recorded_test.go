package workloads

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlanRecordRoundTrip: a call's record survives the compact and the
// JSON encodings; a plan without records encodes as it always did.
func TestPlanRecordRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		compact, json string
		want          *CallPlan
	}{
		{"1:2+3:4/0.5", `[{"calls":[[1,2],[3,4]],"tool_s":0.5}]`,
			&CallPlan{Turns: []PlanTurn{{Calls: []PlanCall{{In: 1, Out: 2}, {In: 3, Out: 4}}, Tool: 5e8}}}},
		{"1:2+10:4:6:3:100;5:6", `[{"calls":[[1,2],[10,4,6,3,100]]},{"calls":[[5,6]]}]`,
			&CallPlan{Turns: []PlanTurn{
				{Calls: []PlanCall{{In: 1, Out: 2}, {In: 10, Out: 4}}, Recorded: []CallRecord{{}, {CacheRead: 6, CacheWrite: 3, MaxTokens: 100}}},
				{Calls: []PlanCall{{In: 5, Out: 6}}}}}},
		{"10:4:0:0:64", `[{"calls":[[10,4,0,0,64]]}]`,
			&CallPlan{Turns: []PlanTurn{{Calls: []PlanCall{{In: 10, Out: 4}}, Recorded: []CallRecord{{MaxTokens: 64}}}}}},
	} {
		got, err := ParseCompactPlan(tc.compact)
		if err != nil {
			t.Fatalf("%s: %v", tc.compact, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParseCompactPlan(%q) (-want +got):\n%s", tc.compact, diff)
		}
		fromJSON, err := parseJSONPlan([]byte(tc.json))
		if err != nil {
			t.Fatalf("%s: %v", tc.json, err)
		}
		if diff := cmp.Diff(tc.want, fromJSON); diff != "" {
			t.Errorf("parseJSONPlan(%s) (-want +got):\n%s", tc.json, diff)
		}
		if s := got.String(); s != tc.compact {
			t.Errorf("String() = %q, want %q", s, tc.compact)
		}
		if s := string(got.AppendJSON(nil)); s != tc.json {
			t.Errorf("AppendJSON = %s, want %s", s, tc.json)
		}
		if err := got.Validate("plan"); err != nil {
			t.Errorf("%s: %v", tc.compact, err)
		}
	}
}

func TestPlanRecordErrors(t *testing.T) {
	for _, tc := range []struct{ plan, want string }{
		{"10:4:8:3:0", "cache read 8 + cache write 3 tokens above the 10 input tokens"},
		{"10:4:1:2", "want IN:OUT"},
		{"10:4:1:2:x", "max_tokens: want an integer"},
	} {
		p, err := ParseCompactPlan(tc.plan)
		if err == nil {
			err = p.Validate("plan")
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.plan, err, tc.want)
		}
	}
	if _, err := parseJSONPlan([]byte(`[{"calls":[[1,2,3]]}]`)); err == nil || !strings.Contains(err.Error(), "two integers") {
		t.Errorf("three numbers: got %v", err)
	}
}
