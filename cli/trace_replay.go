package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/evalsched/lab/predict"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/urfave/cli/v2"
)

// replay-check takes one or more Inspect logs (checked by the command).
func init() { positional["replay-check"] = -1 }

// traceReplayCheckCommand is `sim trace replay-check`: the runs of Inspect
// logs predicted from what they were given and their samples' own work,
// scored against what they recorded (predict/, docs/reference/replay-check.md).
func traceReplayCheckCommand() *cli.Command {
	return &cli.Command{
		Name:      "replay-check",
		Usage:     "predict the runs of Inspect logs (the harness's own scheduling, latency fitted out of sample) and state the error against what they recorded; --max-connections etc. replay them under other settings",
		UsageText: "sim trace replay-check [--json FILE] [--seeds N] [--folds K] [--fit-from LOG]... [--max-connections N] [--max-samples N] [--max-tasks N] [--adaptive] [--policy NAME] [--quota MAPPING] [--prices MAPPING] LOG|DIR...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "json", Usage: "write the report as JSON to `FILE` (docs/reference/replay-check.md); not one of the logs read"},
			&cli.IntFlag{Name: "seeds", Value: 20, Usage: "latency draws (seeds 1..`N`): the 90% interval is their 5th to 95th percentile"},
			&cli.IntFlag{Name: "folds", Value: 5, Usage: "fit call latency `K`-fold by sample (K at least 2): each sample's calls predicted by a fit without it"},
			&cli.StringSliceFlag{Name: "fit-from", Usage: "fit call latency on these other `LOG`s instead of k-fold within the run"},
			&cli.IntFlag{Name: "max-connections", Usage: "what if: every connection pool of size `N`"},
			&cli.IntFlag{Name: "max-samples", Usage: "what if: each task runs at most `N` samples at once"},
			&cli.IntFlag{Name: "max-tasks", Usage: "what if: at most `N` tasks at once"},
			&cli.BoolFlag{Name: "adaptive", Usage: "what if: adaptive connections (inspect_ai >= 0.3.221's default)"},
			&cli.StringFlag{Name: "policy", Usage: "what if: the lab's policy `NAME` (one `sim run --policy` takes: fixed-lane, scheduler, inspect, exec:CMD) admits the samples instead of the harness"},
			&cli.StringFlag{Name: "quota", Usage: "what if: each provider's organisation has these quotas, a YAML flow `MAPPING` of organisation keys, e.g. '{rpm: 500, tpm: 200000}' or '{preset: anthropic, itpm: 30000, otpm: 8000, rpm: 50}' (docs/reference/scenario.md)"},
			&cli.StringFlag{Name: "prices", Usage: "what if: every model's prices, a YAML flow `MAPPING` in dollars per million tokens, e.g. '{input: 2.5, output: 10}': the cost per sample"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageErrorf(c, "missing argument: the Inspect logs (.eval or .json) to replay")
			}
			if c.IsSet("folds") && c.Int("folds") < 2 {
				return usageErrorf(c, "--folds: want at least 2 (a fit without each sample's own calls), got %d", c.Int("folds"))
			}
			for _, f := range []string{"seeds", "max-connections", "max-samples", "max-tasks"} {
				if c.Int(f) < 0 || (c.Int(f) == 0 && f == "seeds" && c.IsSet(f)) {
					return usageErrorf(c, "--%s: want a positive number, got %d", f, c.Int(f))
				}
			}
			if p := c.String("policy"); p != "" && !scenario.IsPolicy(p) {
				return usageErrorf(c, "--policy: unknown %q (have %s)", p, strings.Join(scenario.PolicyNames(), ", "))
			}
			if c.Int("seeds") > 1000 {
				return usageErrorf(c, "--seeds: at most 1000, got %d", c.Int("seeds"))
			}
			opt := predict.Options{Seeds: c.Int("seeds"), Folds: c.Int("folds"), FitFrom: c.StringSlice("fit-from"),
				WhatIf: predict.WhatIf{MaxConnections: c.Int("max-connections"), MaxSamples: c.Int("max-samples"), MaxTasks: c.Int("max-tasks"),
					Adaptive: c.Bool("adaptive"), Policy: c.String("policy"), Quota: c.String("quota"), Prices: c.String("prices")}}
			rep, err := predict.Check(c.Args().Slice(), opt)
			if err != nil {
				return err
			}
			if path := c.String("json"); path != "" {
				b, err := json.MarshalIndent(rep, "", "  ")
				if err != nil {
					return err
				}
				if err := results.WriteFileAtomic(path, append(b, '\n')); err != nil {
					return err
				}
			}
			printReplayCheck(c.App.Writer, rep)
			return nil
		},
	}
}

func printReplayCheck(w io.Writer, rep *predict.Report) {
	for _, s := range rep.Skipped {
		fmt.Fprintf(w, "skipped: %s\n", s)
	}
	for _, s := range rep.Notes {
		fmt.Fprintf(w, "note: %s\n", s)
	}
	for _, r := range rep.Runs {
		h := r.Harness
		fmt.Fprintf(w, "run %s: %d log(s), inspect_ai %s, %d samples, %d calls\n", r.Run, len(r.Logs), orNA(r.Version), r.Samples, r.Calls)
		for _, m := range r.Warnings {
			fmt.Fprintf(w, "  warning: %s\n", m)
		}
		fmt.Fprintf(w, "  harness: max_connections %d (a pool per %s%s), max_samples %d a task, max_tasks %d\n", h.MaxConnections, h.PoolBy, adaptiveNote(h), h.MaxSamples, h.MaxTasks)
		for _, f := range r.Fits {
			fmt.Fprintf(w, "  latency %s: %s, β %.3g, fitted %s on %d calls\n", f.Model, f.Form, f.Load, f.From, f.Calls)
			label := "held out"
			if !f.HeldOut {
				label = "in sample"
			}
			fmt.Fprintf(w, "    of %s\n    %s: MdAPE %.1f%%, MAPE %.1f%%, sum %+.1f%%\n", f.Target, label, 100*f.MdAPE, 100*f.MAPE, 100*f.Bias)
		}
		if !r.HeldOut {
			fmt.Fprintf(w, "  the errors below are in sample (a latency fitted on the calls it predicts): left out of the summary\n")
		}
		printFigures(w, "  ", r.Figures, true)
		if wi := r.WhatIf; wi != nil {
			fmt.Fprintf(w, "  what if (policy %s, max_connections %d%s, max_samples %d, max_tasks %d):\n", wi.Policy, wi.Harness.MaxConnections, adaptiveNote(wi.Harness), wi.Harness.MaxSamples, wi.Harness.MaxTasks)
			printWhatIf(w, "    ", wi.Figures, r.Figures)
			if wi.CostPerSample != nil {
				fmt.Fprintf(w, "    cost per sample $%.4g (the run's tokens at --prices; failed tries not billed)\n", *wi.CostPerSample)
			}
		}
	}
	if len(rep.Runs) > 1 {
		held := 0
		for _, r := range rep.Runs {
			if r.HeldOut {
				held++
			}
		}
		fmt.Fprintf(w, "over %d run%s (absolute relative error; inside: recorded value inside the 90%% interval)", held, map[bool]string{true: "s"}[held != 1])
		if held < len(rep.Runs) {
			fmt.Fprintf(w, "; %d run(s) fitted in sample left out", len(rep.Runs)-held)
		}
		fmt.Fprintf(w, ":\n")
		for _, name := range summaryFigures {
			a := rep.Summary[name]
			if a.Runs == 0 {
				fmt.Fprintf(w, "  %-22s not rec. (by no run)\n", name)
				continue
			}
			fmt.Fprintf(w, "  %-22s median %5.1f%%, p90 %5.1f%%, inside %d/%d; 50+ calls within 20%%: %d/%d\n",
				name, 100**a.MedianAbs, 100**a.P90Abs, a.Covered, a.Runs, a.LargeWithin, a.LargeRuns)
		}
	}
}

// summaryFigures are the figures of the summary over runs: every one
// (predict.Figures' JSON names).
var summaryFigures = []string{"makespan_s", "in_flight_mean", "in_flight_max", "waiting_mean", "sample_duration_p50_s",
	"sample_duration_p90_s", "call_latency_p50_s", "call_latency_p90_s", "throttled_429s"}

func adaptiveNote(h predict.Harness) string {
	if h.Adaptive {
		return ", adaptive"
	}
	return ""
}

func orNA(s string) string {
	if s == "" {
		return "(not recorded)"
	}
	return s
}

func figureRows(f predict.Figures) []struct {
	name string
	fig  predict.Figure
} {
	return []struct {
		name string
		fig  predict.Figure
	}{{"makespan s", f.Makespan}, {"in flight mean", f.InFlightMean}, {"in flight max", f.InFlightMax}, {"waiting mean", f.WaitingMean},
		{"sample p50 s", f.SampleP50}, {"sample p90 s", f.SampleP90}, {"latency p50 s", f.LatencyP50}, {"latency p90 s", f.LatencyP90},
		{"429s", f.Throttled}}
}

func printFigures(w io.Writer, ind string, f predict.Figures, score bool) {
	fmt.Fprintf(w, "%s%-15s %10s %10s %21s %8s\n", ind, "figure", "recorded", "predicted", "90% interval", "error")
	for _, r := range figureRows(f) {
		rec, errS := "not rec.", "not rec."
		if r.fig.Recorded != nil {
			rec, errS = fmt.Sprintf("%.2f", *r.fig.Recorded), "n/a" // recorded 0: no relative error
		}
		if r.fig.Error != nil {
			errS = fmt.Sprintf("%+.1f%%", 100**r.fig.Error)
		}
		fmt.Fprintf(w, "%s%-15s %10s %10.2f %21s %8s\n", ind, r.name, rec, r.fig.Predicted, fmt.Sprintf("[%.2f, %.2f]", r.fig.Interval[0], r.fig.Interval[1]), errS)
	}
}

func printWhatIf(w io.Writer, ind string, f, valid predict.Figures) {
	fmt.Fprintf(w, "%s%-15s %10s %21s %14s\n", ind, "figure", "predicted", "90% interval", "validation err")
	vrows := figureRows(valid)
	for i, r := range figureRows(f) {
		band := "not rec."
		if e := vrows[i].fig.Error; e != nil {
			band = fmt.Sprintf("±%.1f%%", 100*math.Abs(*e))
		}
		fmt.Fprintf(w, "%s%-15s %10.2f %21s %14s\n", ind, r.name, r.fig.Predicted, fmt.Sprintf("[%.2f, %.2f]", r.fig.Interval[0], r.fig.Interval[1]), band)
	}
}
