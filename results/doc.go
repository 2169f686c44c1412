// Package results owns the lab's output: the summary.json schema, the
// statistics that turn a run's raw measurements (LaneRaw, JobTimes,
// SeriesRow) into per-lane metrics, the series.csv and batches.csv formats
// (written and read with encoding/csv), reading an output directory back,
// and the staged output directory. It draws nothing and searches nothing:
// figures, reports and tables are package report's; gate, sweep and tune
// are package lab's.
//
// Files: summary.go, compare.go, seeds.go, fairness.go, convergence.go,
// convergence_metrics.go and disturbance.go the schema and metrics; raw.go
// what a run hands over; quota.go the quota telemetry; floatsort.go the
// O(n) sort behind exact percentiles; stream.go streaming an output
// directory's CSV files as runs go (OutputWriter, atomic commit); output.go
// the CSV headers; load.go reading an output directory back, checked as
// it is read (summary schema and runs; every row finite, of a run, within
// its time and in order; no file cut short); rowfile.go the rows and
// sha256 summary.json records for each row file, checked against the file
// as it is read; outcheck.go the check, before anything runs, that an
// output path could be staged and swapped in (no mount point, no
// read-only file system); outdir.go an output
// directory staged and swapped in whole, locked against a second writer
// (flock on a file beside it), refusing a folder holding anything sim does
// not write, with a resumable staging directory for sweeps and AbortAll
// for a signal; invocation.go the command a summary records; otlp.go a
// run's jobs as OpenTelemetry GenAI spans (SpanSink, OTLPWriter: --otlp).
package results
