// Package results owns the lab's output: the summary.json schema, the
// statistics that turn a run's raw measurements (LaneRaw, JobTimes,
// SeriesRow) into per-lane metrics, the series.csv format and the terminal
// tables. Every metric is defined once, here and in the README.
package results
