package lab

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func ptr(f float64) *float64 { return &f }

// ciVerdict has a passing row, a regression and a figure without a
// baseline over two scenarios, with characters XML and Markdown escape.
func ciVerdict() GateVerdict {
	return GateVerdict{Schema: "evalsched-gate-verdict", Gate: "g<&>.yaml", Regressions: 1, Missing: 1, Rows: []GateRow{
		{Scenario: "small", Lane: "(all)", Metric: "throughput_per_hour", Bound: "floor", Baseline: ptr(100), Now: ptr(101), Change: ptr(0.01), Tolerance: "5%", Limit: ptr(95), Verdict: VerdictOK},
		{Scenario: "small", Lane: "hot-a", Metric: "multiplier", Bound: "floor", Baseline: ptr(4), Now: ptr(3), Change: ptr(-0.25), Tolerance: "5% | ±0.1", Limit: ptr(3.8), Verdict: VerdictRegression},
		{Scenario: "other", Lane: "(all)", Metric: "p90_job_time_s", Bound: "ceiling", Now: ptr(12), Tolerance: "10%", Verdict: VerdictNoBaseline},
	}}
}

// TestJUnitStructure: the JUnit report read back with encoding/xml has a
// suite per scenario, a case per row, a failure for the regression and an
// error for the missing baseline, and counts that add up.
func TestJUnitStructure(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, ciVerdict()); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Errors   int    `xml:"errors,attr"`
			Cases    []struct {
				Name    string `xml:"name,attr"`
				Class   string `xml:"classname,attr"`
				Failure *struct {
					Type string `xml:"type,attr"`
				} `xml:"failure"`
				Error *struct {
					Type string `xml:"type,attr"`
				} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	type caseRow struct{ Suite, Name, Class, Problem string }
	var cases []caseRow
	for _, s := range got.Suites {
		for _, c := range s.Cases {
			p := ""
			if c.Failure != nil {
				p = "failure " + c.Failure.Type
			}
			if c.Error != nil {
				p += "error " + c.Error.Type
			}
			cases = append(cases, caseRow{s.Name, c.Name, c.Class, p})
		}
		if n := len(s.Cases); s.Tests != n {
			t.Errorf("suite %s: tests=%d, %d cases", s.Name, s.Tests, n)
		}
	}
	if got.Suites[0].Failures != 1 || got.Suites[1].Errors != 1 {
		t.Errorf("suite counts: %+v", got.Suites)
	}
	want := []caseRow{
		{"small", "(all) throughput_per_hour", "gate.small", ""},
		{"small", "hot-a multiplier", "gate.small", "failure regression"},
		{"other", "(all) p90_job_time_s", "gate.other", "error no-baseline"},
	}
	if diff := cmp.Diff(want, cases); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
	if got.Name != "sim gate g<&>.yaml" || got.Tests != 3 || got.Failures != 1 || got.Errors != 1 {
		t.Errorf("root %q: tests %d failures %d errors %d, want 3 1 1", got.Name, got.Tests, got.Failures, got.Errors)
	}
	if !strings.HasPrefix(b.String(), `<?xml version="1.0" encoding="UTF-8"?>`) {
		t.Errorf("no XML declaration:\n%s", b.String())
	}
}

// TestJUnitSchema validates the report with xmllint against the JUnit
// schema in testdata (skipped without xmllint: apt-get install
// libxml2-utils), and checks that the schema refuses a broken report.
func TestJUnitSchema(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("no xmllint (apt-get install -y libxml2-utils); the structure is checked by TestJUnitStructure")
	}
	dir := t.TempDir()
	var b bytes.Buffer
	if err := WriteJUnit(&b, ciVerdict()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, text string
		valid      bool
	}{
		{"the gate's report", b.String(), true},
		{"an empty verdict", func() string { var e bytes.Buffer; WriteJUnit(&e, GateVerdict{Gate: "g"}); return e.String() }(), true},
		{"a case without a name", strings.Replace(b.String(), `name="hot-a multiplier"`, "", 1), false},
		{"a negative count", strings.Replace(b.String(), `failures="1"`, `failures="-1"`, 1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".xml")
			if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(xmllint, "--noout", "--schema", "testdata/junit.xsd", p).CombinedOutput()
			if (err == nil) != tc.valid {
				t.Errorf("xmllint: %v (want valid %v)\n%s\n%s", err, tc.valid, out, tc.text)
			}
		})
	}
}

// TestGateMarkdownAndAnnotations: the Markdown table has the outcome and a
// row per figure with the cells escaped; an annotation per failed row.
func TestGateMarkdownAndAnnotations(t *testing.T) {
	var md, ann bytes.Buffer
	if err := WriteGateMarkdown(&md, ciVerdict()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(md.String()), "\n")
	if len(lines) != 3+2+3-1 || !strings.Contains(lines[0], "**FAIL**: 1 regressions, 1 figures without a baseline") {
		t.Fatalf("markdown:\n%s", md.String())
	}
	if want := `| small | hot-a | multiplier | 4 | 3 | -25.0% | floor 3.8 (5% \| ±0.1) | **REGRESSION** |`; lines[len(lines)-2] != want {
		t.Errorf("regression row\n got %s\nwant %s", lines[len(lines)-2], want)
	}
	if err := WriteGitHubAnnotations(&ann, ciVerdict()); err != nil {
		t.Fatal(err)
	}
	want := "::error title=sim gate regression::small hot-a multiplier: now 3, baseline 4 (-25.0%25); floor 3.8 (5%25 | ±0.1): REGRESSION\n" +
		"::error title=sim gate%3A no baseline::other (all) p90_job_time_s: now 12, no baseline (run sim gate --update --reason ...)\n"
	if diff := cmp.Diff(want, ann.String()); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
}
