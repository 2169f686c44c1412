// Package lab holds the decision commands built on runs: the regression
// gate (gate.go, gate_verdict.go), sweeps (sweep.go, sweep_out.go) and
// their shards (shard.go), the tuner (tune.go: a grid, Nelder–Mead and a
// compass search over the scenario keys a tune file names; tune_file.go
// the file and the Pareto front), compare's shards and their merge
// (compare_summary.go), the quota-check verdict (quota_check.go), the
// configurations they run (point.go) and the figures they read from a
// summary (metrics.go).
package lab
