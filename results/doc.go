// Package results owns the lab's output: the summary.json schema, the
// statistics that turn a run's raw measurements (LaneRaw, JobTimes,
// SeriesRow) into per-lane metrics, the series.csv and batches.csv formats
// (written and read with encoding/csv), the terminal tables, and the
// figures and reports made from an output directory. Every metric is
// defined once, here and in the README.
//
// Files: summary.go, compare.go, fairness.go, convergence.go and
// disturbance.go the schema and metrics; stream.go streaming an output
// directory's CSV files as runs go (OutputWriter, atomic commit), output.go
// the terminal tables and load.go reading an output directory back; report.go
// builds the report (report_verdict.go the verdict, report_tables.go the
// tables, report_html.go and report_md.go the two formats), production.go the
// terminal production table; figures.go the figure list and rendering,
// fig_style.go the shared style, fig_draw.go and fig_bars.go the shared
// drawing helpers, fig_data.go the shared data helpers, and one fig_NAME.go
// per figure with its caption.
package results
