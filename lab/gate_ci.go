package lab

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// A gate's verdict in the forms CI systems read: JUnit XML (a test case
// per checked figure), a Markdown table (a GitHub step summary or a pull
// request comment) and GitHub Actions error annotations.

// JUnitSuites is the root of a JUnit XML report.
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

// JUnitSuite is one gate scenario.
type JUnitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []JUnitCase `xml:"testcase"`
}

// JUnitCase is one checked figure; a regression is a failure, a figure
// without a baseline an error.
type JUnitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *JUnitProblem `xml:"failure,omitempty"`
	Error     *JUnitProblem `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// JUnitProblem is a failure or an error: a one-line message and the detail.
type JUnitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnit turns a verdict into a JUnit report: a suite per scenario, in the
// verdict's order, a case per row named LANE METRIC.
//
// Without a verdict, it is one suite "gate" with one case "verdict" in
// error (type no-verdict), the reason its message: a CI system reading it
// shows the gate as broken, never as passed.
func (v GateVerdict) JUnit() JUnitSuites {
	root := JUnitSuites{Name: "sim gate " + v.Gate}
	if v.Outcome == OutcomeNoVerdict {
		msg := "no verdict: " + v.Reason
		c := JUnitCase{Name: "verdict", Classname: "gate", Time: "0", Error: &JUnitProblem{Message: msg, Type: "no-verdict", Text: msg}}
		root.Suites = []JUnitSuite{{Name: "gate", Tests: 1, Errors: 1, Time: "0", Cases: []JUnitCase{c}}}
		root.Tests, root.Errors = 1, 1
		return root
	}
	index := map[string]int{}
	for _, r := range v.Rows {
		i, ok := index[r.Scenario]
		if !ok {
			i = len(root.Suites)
			index[r.Scenario] = i
			root.Suites = append(root.Suites, JUnitSuite{Name: r.Scenario, Time: "0"})
		}
		s := &root.Suites[i]
		c := JUnitCase{Name: r.Lane + " " + r.Metric, Classname: "gate." + r.Scenario, Time: "0", SystemOut: r.Describe()}
		switch r.Verdict {
		case VerdictRegression:
			c.Failure = &JUnitProblem{Message: r.Describe(), Type: "regression", Text: r.Describe()}
			s.Failures++
		case VerdictNoBaseline:
			c.Error = &JUnitProblem{Message: r.Describe(), Type: "no-baseline", Text: r.Describe()}
			s.Errors++
		case VerdictNoFigure: // fails the gate: not a pass
			c.Error = &JUnitProblem{Message: r.Describe(), Type: "no-figure", Text: r.Describe()}
			s.Errors++
		}
		s.Tests++
		s.Cases = append(s.Cases, c)
	}
	for _, s := range root.Suites {
		root.Tests += s.Tests
		root.Failures += s.Failures
		root.Errors += s.Errors
	}
	return root
}

// WriteJUnit writes the verdict as JUnit XML.
func WriteJUnit(w io.Writer, v GateVerdict) error {
	data, err := xml.MarshalIndent(v.JUnit(), "", "  ")
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// Describe says what a row found in one line.
func (r GateRow) Describe() string {
	where := r.Scenario + " " + r.Lane + " " + r.Metric
	if r.Verdict == VerdictNoFigure {
		return where + ": not measured (the runs gave no such figure)"
	}
	if r.Verdict == VerdictNoBaseline {
		return fmt.Sprintf("%s: now %s, no baseline (run sim gate --update --reason ...)", where, r.nowText("-"))
	}
	s := fmt.Sprintf("%s: now %s", where, r.nowText("-"))
	if r.Baseline != nil {
		s += fmt.Sprintf(", baseline %.4g", *r.Baseline)
	}
	if r.Change != nil {
		s += fmt.Sprintf(" (%+.1f%%)", 100**r.Change)
	}
	if r.Limit != nil {
		s += fmt.Sprintf("; %s %.4g (%s)", r.Bound, *r.Limit, r.Tolerance)
	}
	return s + ": " + r.Verdict
}

// WriteGateMarkdown writes the verdict as a Markdown table with the outcome
// first, for a GitHub step summary or a pull-request comment.
func WriteGateMarkdown(w io.Writer, v GateVerdict) error {
	outcome := "**PASS**"
	switch {
	case v.Outcome == OutcomeNoVerdict:
		fence := "```"
		for strings.Contains(v.Reason, fence) {
			fence += "`"
		}
		_, err := fmt.Fprintf(w, "### sim gate `%s`: **NO VERDICT**\n\n%stext\n%s\n%s\n", v.Gate, fence, v.Reason, fence)
		return err
	case !v.Pass:
		outcome = fmt.Sprintf("**FAIL**: %d regressions, %d figures without a baseline", v.Regressions, v.Missing)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### sim gate `%s`: %s\n\n", v.Gate, outcome)
	b.WriteString("| scenario | lane | metric | baseline | now | change | limit | verdict |\n|---|---|---|---:|---:|---:|---|---|\n")
	opt := func(p *float64, f string) string {
		if p == nil {
			return "–"
		}
		return fmt.Sprintf(f, *p)
	}
	for _, r := range v.Rows {
		change := "–"
		if r.Change != nil {
			change = fmt.Sprintf("%+.1f%%", 100**r.Change)
		}
		verdict := r.Verdict
		if verdict != VerdictOK {
			verdict = "**" + verdict + "**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s %s (%s) | %s |\n", mdCell(r.Scenario), mdCell(r.Lane), mdCell(r.Metric),
			opt(r.Baseline, "%.4g"), r.nowText("–"), change, r.Bound, opt(r.Limit, "%.4g"), mdCell(r.Tolerance), verdict)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteGitHubAnnotations writes an ::error:: workflow command per
// regression and per figure without a baseline.
func WriteGitHubAnnotations(w io.Writer, v GateVerdict) error {
	if v.Outcome == OutcomeNoVerdict {
		_, err := fmt.Fprintf(w, "::error title=%s::%s\n", ghEscapeProperty("sim gate: no verdict"), ghEscapeData(v.Reason))
		return err
	}
	for _, r := range v.Rows {
		if r.Verdict == VerdictOK {
			continue
		}
		title := "sim gate regression"
		if r.Verdict == VerdictNoBaseline {
			title = "sim gate: no baseline"
		}
		if r.Verdict == VerdictNoFigure {
			title = "sim gate: not measured"
		}
		if _, err := fmt.Fprintf(w, "::error title=%s::%s\n", ghEscapeProperty(title), ghEscapeData(r.Describe())); err != nil {
			return err
		}
	}
	return nil
}

// mdCell escapes a Markdown table cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// ghEscapeData escapes a workflow command's message (GitHub's toolkit
// escaping: %, CR, LF).
func ghEscapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghEscapeProperty escapes a workflow command's property value.
func ghEscapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
