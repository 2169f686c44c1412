package studies

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/evalsched/lab/predict"
)

// ReplayLogs are the real Inspect logs the replay study predicts (shipped
// with their provenance), from the repository's root.
const ReplayLogs = "predict/testdata/realruns"

// replayWhatIfs are the settings the study replays each run under.
var replayWhatIfs = []struct {
	label string
	w     predict.WhatIf
}{
	{"4 connections", predict.WhatIf{MaxConnections: 4}},
	{"10 connections", predict.WhatIf{MaxConnections: 10}},
	{"32 connections", predict.WhatIf{MaxConnections: 32}},
	{"adaptive", predict.WhatIf{Adaptive: true}},
	{"the scheduler", predict.WhatIf{Policy: "scheduler"}},
}

// replaySeeds is the study's latency draws.
const replaySeeds = 20

// GenerateReplayStudy writes docs/studies/replay.md: each real run
// predicted from its logs (predict.Check) against what it recorded, then
// replayed at 4, 10 and 32 connections, under adaptive connections and
// under the scheduler, each with the validation error beside it.
func GenerateReplayStudy(o StudyOptions) (string, error) {
	logs := filepath.Join(o.Root, ReplayLogs)
	base, err := predict.Check([]string{logs}, predict.Options{Seeds: replaySeeds})
	if err != nil {
		return "", err
	}
	what := make([]*predict.Report, len(replayWhatIfs))
	for i, w := range replayWhatIfs {
		if what[i], err = predict.Check([]string{logs}, predict.Options{Seeds: replaySeeds, WhatIf: w.w}); err != nil {
			return "", fmt.Errorf("%s: %w", w.label, err)
		}
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Predicting real runs, and what they would have taken\n\n")
	p("%s", generatedLine("sim study replay"))
	p("`sim trace replay-check` predicts each run of the %d Inspect logs in `%s` (MIT; provenance in its README.md) from what the run was given and what each sample's own work was: no sample's or call's recorded start, no recorded latency of a call it predicts (method: `predict/doc.go`, fields: docs/reference/replay-check.md). A run is one inspect process: the logs of one run_id together. Figures are the median over %d latency draws; the interval is their 5th to 95th percentile.\n\n",
		countLogs(base), ReplayLogs, replaySeeds)
	p("## The prediction against the record\n\n")
	p("| run | logs | samples | calls | makespan recorded s | predicted s [90%%] | error | in flight recorded | predicted | error |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range base.Runs {
		m, f := r.Figures.Makespan, r.Figures.InFlightMean
		me, fe := pct(m.Error), pct(f.Error)
		if !r.HeldOut { // latency fitted on its own calls: not in the summary
			me, fe = me+" (in sample)", fe+" (in sample)"
		}
		p("| %s | %d | %d | %d | %s | %.4g [%.4g, %.4g] | %s | %s | %.3g | %s |\n", runName(r), len(r.Logs), r.Samples, r.Calls,
			num(m.Recorded), m.Predicted, m.Interval[0], m.Interval[1], me, num(f.Recorded), f.Predicted, fe)
	}
	p("\n")
	for _, name := range []string{"makespan_s", "in_flight_mean", "waiting_mean", "sample_duration_p50_s", "call_latency_p50_s"} {
		a := base.Summary[name]
		if a.Runs == 0 {
			continue
		}
		p("- `%s`: median absolute error %.1f%%, 90th percentile %.1f%% over %d runs; recorded value inside the 90%% interval in %d of %d; runs of 50 calls or more within 20%%: %d of %d.\n",
			name, 100**a.MedianAbs, 100**a.P90Abs, a.Runs, a.Covered, a.Runs, a.LargeWithin, a.LargeRuns)
	}
	a := base.Summary["makespan_s"]
	goal := "meets"
	if a.MedianAbs == nil || *a.MedianAbs > 0.10 || a.LargeWithin < a.LargeRuns || 5*a.Covered < 4*a.Runs {
		goal = "misses"
	}
	p("\nAgainst the goals (makespan median error at most 10%%, every run of 50 calls or more within 20%%, the recorded makespan inside the 90%% interval for at least 80%% of the runs) the prediction %s them: median %.1f%%, %d of %d large runs within 20%%, inside the interval in %d of %d runs (%.0f%%).\n\n",
		goal, 100**a.MedianAbs, a.LargeWithin, a.LargeRuns, a.Covered, a.Runs, 100*float64(a.Covered)/float64(a.Runs))
	p("## What each run would have taken\n\n")
	p("Makespan in seconds, predicted (the run's validation error above is the band to read it with).\n\n| run | recorded | as run |")
	for _, w := range replayWhatIfs {
		p(" %s |", w.label)
	}
	p("\n|---|---|---|")
	for range replayWhatIfs {
		p("---|")
	}
	p("\n")
	for i, r := range base.Runs {
		p("| %s | %s | %.4g ± %s |", runName(r), num(r.Figures.Makespan.Recorded), r.Figures.Makespan.Predicted, absPct(r.Figures.Makespan.Error))
		for k := range replayWhatIfs {
			p(" %.4g |", what[k].Runs[i].WhatIf.Figures.Makespan.Predicted)
		}
		p("\n")
	}
	p("\nThe harness each run is replayed under (version, pools, max_samples, max_tasks) is in `sim trace replay-check --json`'s `harness`; a what-if at N connections sets every pool to N and, where the log left max_samples unset, max_samples to N (Inspect's default). Adaptive connections are the lab's additive limit with Inspect's cut (×0.8, 15 s cooldown) and bounds; Inspect's slow start is not modelled. Under the scheduler, the lab's scheduler admits the samples (its ramp-up makes runs of a few minutes slower); no provider quota is modelled, so no run meets a 429.\n")
	return b.String(), nil
}

func countLogs(r *predict.Report) int {
	n := 0
	for _, x := range r.Runs {
		n += len(x.Logs)
	}
	return n
}

func runName(r *predict.RunResult) string {
	n := filepath.Base(r.Logs[0])
	n = strings.TrimSuffix(n, ".eval")
	if len(r.Logs) > 1 {
		n += fmt.Sprintf(" (+%d)", len(r.Logs)-1)
	}
	return "`" + n + "`"
}

func num(v *float64) string {
	if v == nil {
		return "not recorded"
	}
	return fmt.Sprintf("%.4g", *v)
}

func pct(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f%%", 100**v)
}

func absPct(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*math.Abs(*v))
}
