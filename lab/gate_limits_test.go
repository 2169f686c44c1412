package lab

import (
	"bytes"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGateLimitsReachable: a floor or ceiling no value of its figure can
// cross is refused at the check's line — a fixed one when the file is
// loaded, one set by the baseline when the baseline is read — and one the
// figure can cross is kept. The limits are worked out by hand: a floor
// fails only below it, a ceiling only above it; every figure is ≥ 0,
// jain and the container-wait share ≤ 1.
func TestGateLimitsReachable(t *testing.T) {
	const head = "baseline: b.json\nscenarios:\n  - {name: a, scenario: light-load, seeds: [1, 2]}\nchecks:\n"
	base := func(metric string, mean, se float64, values ...float64) GateBaseline {
		return GateBaseline{Scenarios: []BaselineScenario{{Name: "a", Seeds: []uint64{1, 2}, Figures: []BaselineFigure{
			{Lane: AllLanes, Metric: metric, Values: values, Mean: mean, SE: se}}}}}
	}
	for _, tc := range []struct {
		name, check string
		base        GateBaseline
		want        string // "" kept; else the error starts F:5: and holds this
	}{
		{"fixed jain floor at 0", "{metric: jain, floor: {threshold: 0}}", GateBaseline{}, "checks[0].floor.threshold: a floor at 0: jain is never below 0"},
		{"fixed jain floor at 0.01", "{metric: jain, floor: {threshold: 0.01}}", GateBaseline{}, ""},
		{"fixed jain ceiling at 1", "{metric: jain, ceiling: {threshold: 1}}", GateBaseline{}, "checks[0].ceiling.threshold: a ceiling at 1: jain is never above 1"},
		{"fixed jain ceiling at 0.99", "{metric: jain, ceiling: {threshold: 0.99}}", GateBaseline{}, ""},
		{"fixed share ceiling at 1.5", "{metric: p90_container_wait_share, ceiling: {threshold: 1.5}}", GateBaseline{}, "never above 1"},
		{"fixed throughput floor at -1", "{metric: throughput_per_hour, floor: {threshold: -1}}", GateBaseline{}, "checks[0].floor.threshold: must be a finite number >= 0, got -1"},
		{"fixed 429 ceiling, however high", "{metric: rejected_429, ceiling: {threshold: 1e9}}", GateBaseline{}, ""},
		{"fixed outage ceiling at 0", "{metric: outage_minutes, ceiling: {threshold: 0}}", GateBaseline{}, ""},
		// a limit no figure meets: the gate would always fail (exit 3)
		{"fixed outage ceiling below 0", "{metric: outage_minutes, ceiling: {threshold: -1}}", GateBaseline{}, "checks[0].ceiling.threshold: must be a finite number >= 0, got -1"},
		{"fixed jain floor at 1.5", "{metric: jain, floor: {threshold: 1.5}}", GateBaseline{}, "checks[0].floor.threshold: a floor at 1.5: jain is never above 1, so this check can never pass"},
		{"fixed share floor at 1.01", "{metric: p90_container_wait_share, floor: {threshold: 1.01}}", GateBaseline{}, "never above 1, so this check can never pass"},
		{"fixed jain floor at 1", "{metric: jain, floor: {threshold: 1}}", GateBaseline{}, ""},
		// 69.6 − 3 × 46.8 = −70.8
		{"3 SE under 0 jobs/h", "{metric: throughput_per_hour, floor: {relative: 0.05, k_se: 3}}", base(MetricThroughput, 69.6, 46.8, 20, 119.2),
			"checks[0].floor: throughput_per_hour of scenario \"a\" on lane \"(all)\": the floor is -70.8"},
		// 69.6 − 3 × 10 = 39.6
		{"3 SE above 0 jobs/h", "{metric: throughput_per_hour, floor: {relative: 0.05, k_se: 3}}", base(MetricThroughput, 69.6, 10, 59.6, 79.6), ""},
		{"jain 0 less 0.05", "{metric: jain, floor: {absolute: 0.05}}", base(MetricJain, 0, 0, 0, 0), "the floor is -0.05"},
		{"jain 0.97 plus 0.05", "{metric: jain, ceiling: {absolute: 0.05}}", base(MetricJain, 0.97, 0, 0.97, 0.97), "the ceiling is 1.02"},
		{"jain 0.9 plus 0.05", "{metric: jain, ceiling: {absolute: 0.05}}", base(MetricJain, 0.9, 0, 0.9, 0.9), ""},
		{"a p90 ceiling has no top", "{metric: p90_job_time_s, ceiling: {relative: 10}}", base(MetricP90, 300, 0, 300, 300), ""},
		// paired 1: each seed's floor is its value × 0
		{"paired 1 on every seed", "{metric: throughput_per_hour, floor: {paired: 1}}", base(MetricThroughput, 50, 0, 40, 60), "every seed's own floor"},
		{"paired 0.02, one seed at 0", "{metric: throughput_per_hour, floor: {paired: 0.02}}", base(MetricThroughput, 20, 0, 0, 40), ""},
		{"paired 0.02, every seed at 0", "{metric: throughput_per_hour, floor: {paired: 0.02}}", base(MetricThroughput, 0, 0, 0, 0), "every seed's own floor"},
		// the paired part can fail, the spread's floor (−70.8) cannot
		{"spread under 0 beside paired", "{metric: throughput_per_hour, floor: {k_se: 3, paired: 0.02}}", base(MetricThroughput, 69.6, 46.8, 20, 119.2), "the floor is -70.8"},
		{"no baseline figure: left to the verdict", "{metric: tokens_per_hour, floor: {absolute: 1e12}}", base(MetricThroughput, 1, 0, 1, 1), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "F")
			if err := os.WriteFile(path, []byte(head+"  - "+tc.check+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			g, err := LoadGate(path)
			if err == nil {
				err = g.CheckLimits(tc.base)
			}
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && err == nil:
				t.Errorf("accepted; want %q", tc.want)
			case tc.want != "" && (!strings.HasPrefix(err.Error(), path+":5: ") || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "can never") && !strings.Contains(err.Error(), ">= 0")):
				t.Errorf("got %v\nwant %s:5: …%s…", err, path, tc.want)
			}
		})
	}
}

// TestNoVerdictForms: a gate without a verdict says so, with the reason,
// in every form: not a pass, one JUnit error of type no-verdict, a
// Markdown heading and an annotation, and no row anywhere.
func TestNoVerdictForms(t *testing.T) {
	v := NoVerdict("g.yaml", errors.New("b.json does not pin what the gate runs: scenario \"a\" has no baseline"))
	if v.Pass || v.Outcome != OutcomeNoVerdict || len(v.Rows) != 0 {
		t.Errorf("%+v", v)
	}
	var b bytes.Buffer
	if err := WriteJUnit(&b, v); err != nil {
		t.Fatal(err)
	}
	var got JUnitSuites
	if err := xml.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := JUnitSuites{XMLName: xml.Name{Local: "testsuites"}, Name: "sim gate g.yaml", Tests: 1, Errors: 1, Suites: []JUnitSuite{{Name: "gate", Tests: 1, Errors: 1, Time: "0",
		Cases: []JUnitCase{{Name: "verdict", Classname: "gate", Time: "0", Error: &JUnitProblem{Message: "no verdict: " + v.Reason, Type: "no-verdict", Text: "no verdict: " + v.Reason}}}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JUnit (-want +got):\n%s", diff)
	}
	b.Reset()
	WriteGateMarkdown(&b, v)
	if s := b.String(); !strings.HasPrefix(s, "### sim gate `g.yaml`: **NO VERDICT**\n") || !strings.Contains(s, "\n"+v.Reason+"\n") || strings.Contains(s, "|") {
		t.Errorf("Markdown:\n%s", s)
	}
	b.Reset()
	WriteGitHubAnnotations(&b, v)
	if s := b.String(); s != "::error title=sim gate%3A no verdict::"+v.Reason+"\n" {
		t.Errorf("annotations: %q", s)
	}
}

// TestBaselineChange: the change --update prints for each figure.
func TestBaselineChange(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	for _, tc := range []struct {
		old, new *float64
		want     string
	}{
		{f(1361), f(1075.19), "-21.0%"}, // a lane cut by 21%
		{f(100), f(100), "+0.0%"},
		{f(100), f(100.01), "+0.01%"}, // too small for one decimal, not none
		{f(-4), f(-2), "+50.0%"},      // relative to |old|
		{f(0), f(3.5), "+3.5"},        // from 0: the difference
		{f(0), f(0), "+0"},
		{nil, f(2), "new"},
		{f(2), nil, "gone"},
	} {
		if got := (BaselineChange{Old: tc.old, New: tc.new}).Change(); got != tc.want {
			t.Errorf("%v → %v: %q, want %q", tc.old, tc.new, got, tc.want)
		}
	}
}
