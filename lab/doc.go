// Package lab holds the decision commands built on runs: the regression
// gate (gate.go: the file, tolerances, baselines pinned to a digest;
// gate_verdict.go: the judgement, spread and paired per seed, or no
// verdict; gate_limits.go: the values each figure can take, so a limit it
// cannot cross is refused; gate_ci.go: JUnit, Markdown, annotations), sweeps
// (sweep.go, sweep_out.go: the point files, resume, merge) and their
// shards (shard.go), the tuner (tune.go: a grid, Nelder–Mead and a
// compass search over the scenario keys a tune file names; tune_file.go
// the file and the Pareto front), compare's shards and their merge
// (compare_summary.go), the quota-check verdict (quota_check.go), the
// configurations they run (point.go; build.go builds one, blaming a value
// its overlay set on the file that set it; baselines.go keeps the baseline
// runs that points differing only in another policy's settings share) and the figures they read from
// a summary (metrics.go, versioned by MetricsVersion), and the studies of
// docs/studies (study.go: the registry `sim study` runs; one file per
// study, each making its own runs and computing every number and verdict
// it writes).
//
// Gate, sweep and tune files are read as strictly as scenarios (input.go):
// bounded while read, UTF-8 text, one YAML document, no key twice, no
// aliases, every value of its field's type before decoding, closed sets as
// typed enums (enums.go: Goal, ToleranceKind), every name resolved against
// what exists and every point built before anything runs; errors are
// *field.Error at FILE:LINE: path.
package lab
