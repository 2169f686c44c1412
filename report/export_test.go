package report

import "strings"

// MarkdownRow is one report.md table row of cells, bold or plain.
func MarkdownRow(cells []string, bold bool) string {
	var b strings.Builder
	format := mdEscape
	if bold {
		format = mdBold
	}
	mdRow(&b, cells, format)
	return b.String()
}
