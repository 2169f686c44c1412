package lab

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/google/go-cmp/cmp"
)

// TestJainUnmeasured: a run with no fairness window of two backlogged
// projects has no jain figure (it had 0, which a gate floor read as a
// REGRESSION and a tune constraint as a real miss); a gate check on it
// reads NO FIGURE, which fails the gate as not measured, and a tune
// constraint on it is not met. A measured run keeps its figure.
func TestJainUnmeasured(t *testing.T) {
	measured := 0.6
	for _, tc := range []struct {
		name        string
		jain        *float64
		wantVerdict string
		wantFeas    bool
	}{
		{"undefined", nil, VerdictNoFigure, false},
		{"measured", &measured, VerdictOK, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := results.Run{Fairness: results.FairnessSummary{JainCrossLane: tc.jain}}
			now := Aggregate([][]MetricValue{RunMetrics(run, nil)})
			row := judgeRow(GateCheck{Metric: MetricJain, Floor: &Tolerance{Threshold: fp(0.1)}}, GateScenario{Name: "a"}, AllLanes, GateBaseline{}, now)
			figs := map[MetricKey]float64{}
			for _, a := range now {
				figs[a.MetricKey] = a.Mean
			}
			tu := &Tuner{Objective: TuneGoal{Metric: MetricThroughput, Goal: GoalMax}, Constraints: []TuneConstraint{{Metric: MetricJain, Min: fp(0.25)}}}
			e := TuneEval{Figures: figs}
			tu.judge(&e)
			if diff := cmp.Diff([]any{tc.wantVerdict, tc.wantFeas}, []any{row.Verdict, e.Feasible}); diff != "" {
				t.Errorf("gate verdict, tune feasible (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNoFigureSaysNotMeasured: a NO FIGURE row reads as not measured in
// every report of the verdict, and its now is null in verdict.json (it
// printed "now 0", a JUnit pass and a "regression" annotation).
func TestNoFigureSaysNotMeasured(t *testing.T) {
	v := GateVerdict{Gate: "g", Missing: 1, Rows: []GateRow{{Scenario: "small", Lane: AllLanes, Metric: MetricJain, Bound: "floor", Tolerance: "fixed 0.1", Verdict: VerdictNoFigure}}}
	var table, md, ann strings.Builder
	WriteGateTable(&table, v)
	WriteGateMarkdown(&md, v)
	WriteGitHubAnnotations(&ann, v)
	js, _ := json.Marshal(v.Rows[0].Now)
	got := []string{v.Rows[0].Describe(), strings.Fields(strings.Split(table.String(), "\n")[1])[4], lastLine(md.String()),
		strings.TrimSpace(ann.String()), fmt.Sprint(v.JUnit().Errors), string(js)}
	want := []string{"small (all) jain: not measured (the runs gave no such figure)", "-",
		"| small | (all) | jain | – | – | – | floor – (fixed 0.1) | **NO FIGURE** |",
		"::error title=sim gate%3A not measured::small (all) jain: not measured (the runs gave no such figure)", "1", "null"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
