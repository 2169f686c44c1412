package report

import (
	"fmt"
	"strings"
)

func (r *report) markdown() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", mdEscape(r.Title))
	fmt.Fprintf(&b, "## %s\n\n", mdEscape(r.Verdict.Table.Title))
	if r.Verdict.Reading != "" {
		fmt.Fprintf(&b, "%s\n\n", mdBold(r.Verdict.Reading))
	}
	if r.Verdict.Detail != "" {
		fmt.Fprintf(&b, "%s\n\n", mdEscape(r.Verdict.Detail))
	}
	mdTable(&b, r.Verdict.Table)
	for _, f := range r.Facts {
		fmt.Fprintf(&b, "- %s: %s\n", mdBold(f[0]), mdEscape(f[1]))
	}
	b.WriteString("\n")
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "> %s\n\n", mdEscape(p))
	}
	for _, t := range r.Tables {
		fmt.Fprintf(&b, "## %s\n\n", mdEscape(t.Title))
		mdTable(&b, t)
	}
	b.WriteString("## Figures\n\n")
	for _, f := range r.Figures {
		fmt.Fprintf(&b, "### %s\n\n![%s](%s)\n\n%s\n\n", mdEscape(f.Title), mdEscape(f.Title), f.Rel, mdEscape(f.Caption))
	}
	return []byte(b.String())
}

// mdTable writes t's note and, if it has any row, the table (GFM), its
// total row in bold.
func mdTable(b *strings.Builder, t table) {
	if t.Note != "" {
		fmt.Fprintf(b, "%s\n\n", mdEscape(t.Note))
	}
	if len(t.Rows) == 0 && t.Total == nil {
		return
	}
	mdRow(b, t.Head, mdEscape)
	sep := make([]string, len(t.Head))
	for i := range sep {
		sep[i] = "---:"
		if i == 0 {
			sep[i] = ":---"
		}
	}
	b.WriteString("|" + strings.Join(sep, "|") + "|\n")
	for _, row := range t.Rows {
		mdRow(b, row, mdEscape)
	}
	if t.Total != nil {
		mdRow(b, t.Total, mdBold)
	}
	b.WriteString("\n")
}

func mdRow(b *strings.Builder, cells []string, format func(string) string) {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = format(c)
	}
	b.WriteString("| " + strings.Join(out, " | ") + " |\n")
}

// mdBold is s escaped, then in bold (an empty s stays empty: "****" is not
// bold).
func mdBold(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return "**" + mdEscape(s) + "**"
}

// mdEscape keeps a cell or a line from breaking a Markdown table or turning
// into markup: backslash escapes for Markdown's punctuation, entities for
// HTML.
var mdEscape = strings.NewReplacer(`\`, `\\`, "|", `\|`, "\n", " ", "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`,
	"<", "&lt;", ">", "&gt;", "&", "&amp;").Replace
