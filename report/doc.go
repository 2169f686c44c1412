// Package report draws what a run wrote: every figure, the HTML and
// Markdown report, and the terminal tables of run, compare and
// quota-check. It reads only package results' types.
//
// Files: report.go builds the report (report_verdict.go the verdict,
// report_tables.go the tables, report_html.go and report_md.go the two
// formats); tables_terminal.go, production.go, remedy.go, controllers.go
// and quota.go the terminal tables; figures.go the figure list and
// rendering (on every core, written in report order), fig_style.go the
// shared style, fig_draw.go, fig_bars.go and fig_line.go the shared
// drawing helpers, fig_data.go the shared data helpers, and one
// fig_NAME.go per figure with its caption.
package report
