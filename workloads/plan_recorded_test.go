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

// TestPlanRecordTrace: a plan job with recorded calls reads from JSON
// Lines and CSV, and writes back with its records, in both formats.
func TestPlanRecordTrace(t *testing.T) {
	const plan = `[{"calls":[[1000,100,800,100,4096],[900,50]],"tool_s":2.5},{"calls":[[2100,40]]}]`
	const compact = `1000:100:800:100:4096+900:50:0:0:0/2.5;2100:40`
	inputs := map[string]string{
		"jsonl": `{"v":1,"id":"a","arrival_s":0,"account":"x","project":"x/p","batch":"b","model":"m","plan":` + plan + "}\n",
		"csv":   "v,id,arrival_s,account,project,batch,model,plan\n1,a,0,x,x/p,b,m," + compact + "\n",
	}
	for format, in := range inputs {
		r := NewTraceReader(strings.NewReader(in), "t."+format, JobFormat(format), []string{"m"}, nil, TraceOptions{})
		job, ok := r.Next()
		if !ok {
			t.Fatalf("%s: %v", format, r.Err())
		}
		want := []CallRecord{{CacheRead: 800, CacheWrite: 100, MaxTokens: 4096}, {}}
		if diff := cmp.Diff(want, job.Behaviour.Plan.Turns[0].Recorded); diff != "" {
			t.Errorf("%s: records (-want +got):\n%s", format, diff)
		}
		if job.Behaviour.Plan.Turns[1].Recorded != nil {
			t.Errorf("%s: a turn without records read as %v", format, job.Behaviour.Plan.Turns[1].Recorded)
		}
		for _, out := range []string{"jsonl", "csv"} {
			var b strings.Builder
			w, err := NewTraceWriter(&b, JobFormat(out), []string{"m"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(job); err != nil {
				t.Fatal(err)
			}
			w.Flush()
			// A call whose record is all zero writes two numbers, as
			// every call did before records existed.
			wantPlan := `"plan":` + plan
			if out == "csv" {
				wantPlan = ",1000:100:800:100:4096+900:50/2.5;2100:40\n"
			}
			if !strings.Contains(b.String(), wantPlan) {
				t.Errorf("%s read, %s written: %q lacks %q", format, out, b.String(), wantPlan)
			}
		}
	}
}
