package report_test

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/evalsched/lab/report"
	"github.com/evalsched/lab/sim/simtest"
	"github.com/google/go-cmp/cmp"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// gfm renders Markdown as GitHub does tables, with goldmark's GFM extension.
func gfm(t *testing.T, md string) string {
	t.Helper()
	var b bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(md), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var tdRe = regexp.MustCompile(`(?s)<td[^>]*>(.*?)</td>`)

// TestMarkdownCellsRenderAsWritten: a table cell made by mdRow renders as
// its text (plain) or its text in <strong> (bold), whatever the text holds.
func TestMarkdownCellsRenderAsWritten(t *testing.T) {
	cells := []string{"(all)", "a|b", "x*y*z", "__init__", "<b>tag</b>", "[link](x)", "`code`", `back\slash`, "1 & 2", "→ 3.1×", "-", "tier 1 3%, tier 2 36%"}
	for _, bold := range []bool{false, true} {
		for _, c := range cells {
			name := c
			if bold {
				name = "bold " + c
			}
			t.Run(name, func(t *testing.T) {
				want := html.EscapeString(c)
				if bold {
					want = "<strong>" + want + "</strong>"
				}
				md := "| h |\n|---|\n" + report.MarkdownRow([]string{c}, bold)
				m := tdRe.FindStringSubmatch(gfm(t, md))
				if m == nil {
					t.Fatalf("no table cell in %q", gfm(t, md))
				}
				// goldmark escapes quotes; html.EscapeString does too, identically.
				if diff := cmp.Diff(want, m[1]); diff != "" {
					t.Errorf("cell %q rendered wrong (-want +got):\n%s", c, diff)
				}
			})
		}
	}
}

// TestReportMarkdownTotalRow renders the whole report.md of a comparison:
// every total row's first cell is <strong>(all)</strong>, and no literal
// asterisk or backslash survives in a table.
func TestReportMarkdownTotalRow(t *testing.T) {
	dir, _ := simtest.Outputs(t)
	out := gfm(t, reportFile(t, dir, "report.md"))
	rows := regexp.MustCompile(`(?s)<tr>\s*<td[^>]*>(.*?)</td>`).FindAllStringSubmatch(out, -1)
	var totals []string
	for _, r := range rows {
		if strings.Contains(r[1], "(all)") {
			totals = append(totals, r[1])
		}
	}
	want := []string{"<strong>(all)</strong>", "<strong>(all)</strong>"} // the verdict and the per-lane comparison
	if diff := cmp.Diff(want, totals); diff != "" {
		t.Errorf("total rows' first cells (-want +got):\n%s", diff)
	}
	for _, m := range tdRe.FindAllStringSubmatch(out, -1) {
		if strings.ContainsAny(m[1], `*\`) {
			t.Errorf("cell renders with markup characters: %q", m[1])
		}
	}
}
