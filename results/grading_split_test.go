package results

import (
	"math"
	"testing"
)

// TestTotalIsEvaluationGradingApart: "(all)" sums the evaluation lanes
// only, the grading lanes go to Grading, and the p90 job's three shares
// are those of the job ranked ⌈0.9 n⌉ by total time, worked out by hand.
func TestTotalIsEvaluationGradingApart(t *testing.T) {
	// Ten evaluation jobs with totals 10, 20, ..., 100: the p90 job (rank
	// 9) is the one of total 90 — queued 60, start 3, gateway 9, llm 12,
	// tool 6.
	var eval []JobTimes
	for i := 1; i <= 10; i++ {
		jt := JobTimes{Queued: float32(10*i - 5), Start: 1, LLM: 2, Tool: 2}
		if i == 9 {
			jt = JobTimes{Queued: 60, Start: 3, Gateway: 9, LLM: 12, Tool: 6}
		}
		eval = append(eval, jt)
	}
	grade := []JobTimes{{Queued: 1, Start: 15, LLM: 4}, {Start: 16, LLM: 5}}
	d := RunData{WindowStart: 0, WindowEnd: 3600, Lanes: []LaneRaw{
		{Model: "hot", Completed: 10, Times: eval},
		{Model: "judge", Completed: 2, Times: grade, Grading: true},
	}}
	run := Summarize(d)
	if run.Total.Model != AllLanes || run.Total.Completed != 10 {
		t.Errorf("total %s completed %d, want (all) 10 (the judge left out)", run.Total.Model, run.Total.Completed)
	}
	if run.Grading == nil || run.Grading.Model != GradingLanes || run.Grading.Completed != 2 {
		t.Fatalf("grading %+v, want (grading) with 2 jobs", run.Grading)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"container wait", run.Total.P90ContainerWaitShare, 63.0 / 90},
		{"gateway wait", run.Total.P90GatewayWaitShare, 9.0 / 90},
		{"running", run.Total.P90RunningShare, 18.0 / 90},
		{"wait share (unchanged)", run.Total.P90WaitShare, 72.0 / 90},
		// Two grading jobs (totals 20, 21): rank ⌈1.8⌉ = 2, the one of 21.
		{"grading container wait", run.Grading.P90ContainerWaitShare, 16.0 / 21},
		{"grading running", run.Grading.P90RunningShare, 5.0 / 21},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
	if run := Summarize(RunData{WindowEnd: 3600, Lanes: []LaneRaw{{Model: "hot", Completed: 10, Times: eval}}}); run.Grading != nil {
		t.Errorf("a run without grading lanes has grading %+v", run.Grading)
	}
}
