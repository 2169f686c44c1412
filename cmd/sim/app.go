package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/sim"
	"github.com/evalsched/lab/workloads"
	"github.com/urfave/cli/v2"
)

func newApp() *cli.App {
	scenarioFlag := &cli.StringFlag{Name: "scenario", Usage: "scenario YAML file, or the name of an embedded one (" + strings.Join(sim.EmbeddedNames(), ", ") + ")", Value: sim.DefaultScenario}
	seedFlag := &cli.Uint64Flag{Name: "seed", Usage: "random seed: the same scenario and seed give the same results", Value: 1}
	outFlag := &cli.StringFlag{Name: "out", Usage: "directory for summary.json and series.csv (created if missing)", Value: "out"}
	topFlag := &cli.IntFlag{Name: "top", Usage: "lanes to show in the table, busiest first (0 = all)", Value: 15}
	traceFlag := &cli.StringFlag{Name: "trace", Usage: "replay this job trace (JSONL or CSV, see workloads/TRACE_FORMAT.md) instead of the scenario's generator"}
	skipFlag := &cli.BoolFlag{Name: "skip-invalid", Usage: "with --trace: skip bad records (listed on stderr) instead of refusing the trace"}
	reportFlag := &cli.BoolFlag{Name: "report", Usage: "also write report.html, report.md and figures/ into --out (as sim report does)"}
	return &cli.App{
		Name:      "sim",
		ErrWriter: os.Stderr,
		Usage:     "discrete-event lab for LLM-evaluation job scheduling",
		Commands: []*cli.Command{{
			Name:      "run",
			Usage:     "run one policy on a scenario and print the per-lane table",
			UsageText: "sim run [--scenario FILE] [--policy NAME] [--seed N] [--out DIR] [--trace FILE [--skip-invalid]]",
			Flags: []cli.Flag{scenarioFlag, seedFlag, outFlag, topFlag, traceFlag, skipFlag, reportFlag,
				&cli.StringFlag{Name: "policy", Usage: "policy: " + strings.Join(sim.PolicyNames, " or "), Value: "fixed-lane"}},
			Action: func(c *cli.Context) error {
				return withReport(c, runCommand(c.App.Writer, options{stderr: c.App.ErrWriter, scenario: c.String("scenario"), seed: c.Uint64("seed"), dir: c.String("out"),
					top: c.Int("top"), trace: c.String("trace"), skipInvalid: c.Bool("skip-invalid"), policy: c.String("policy")}))
			},
		}, {
			Name:      "compare",
			Usage:     "run the fixed-lane baseline and the scheduler on the identical job stream, in parallel, and compare lane by lane",
			UsageText: "sim compare [--scenario FILE] [--seed N] [--seeds K] [--out DIR] [--trace FILE [--skip-invalid]]",
			Flags: []cli.Flag{scenarioFlag, seedFlag, outFlag, topFlag, traceFlag, skipFlag, reportFlag,
				&cli.IntFlag{Name: "seeds", Usage: "also run seeds N+1 .. N+K-1 and report each lane's multiplier as a mean with a 95% confidence interval", Value: 1}},
			Action: func(c *cli.Context) error {
				if k := c.Int("seeds"); k < 1 || k > 1000 {
					return fmt.Errorf("--seeds: must be in 1..1000, got %d", k)
				}
				return withReport(c, compareCommand(c.App.Writer, options{stderr: c.App.ErrWriter, scenario: c.String("scenario"), seed: c.Uint64("seed"), dir: c.String("out"),
					top: c.Int("top"), trace: c.String("trace"), skipInvalid: c.Bool("skip-invalid"), seeds: c.Int("seeds")}))
			},
		}, traceCommand(), reportCommand(), {
			Name:  "scenarios",
			Usage: "list the embedded scenarios, or print one with --show NAME",
			Flags: []cli.Flag{&cli.StringFlag{Name: "show", Usage: "print this embedded scenario's YAML"}},
			Action: func(c *cli.Context) error {
				if name := c.String("show"); name != "" {
					data, err := sim.EmbeddedYAML(name)
					if err != nil {
						return err
					}
					_, err = c.App.Writer.Write(data)
					return err
				}
				for _, n := range sim.EmbeddedNames() {
					fmt.Fprintln(c.App.Writer, n)
				}
				return nil
			},
		}},
	}
}

// withReport writes the report after a successful run when --report is set.
func withReport(c *cli.Context, err error) error {
	if err != nil || !c.Bool("report") {
		return err
	}
	return writeReport(c.App.ErrWriter, c.String("out"))
}

// options are the flags run and compare share.
type options struct {
	scenario, policy, dir, trace string
	seed                         uint64
	top                          int
	seeds                        int // compare: how many seeds, from seed on
	skipInvalid                  bool
	stderr                       io.Writer // the app's ErrWriter: progress and "wrote" lines
}

// prepare loads the scenario and, with --trace, validates the whole trace
// before anything is simulated.
func prepare(o options) (*sim.Scenario, func() (workloads.Source, error), error) {
	sc, err := sim.LoadScenario(o.scenario)
	if err != nil {
		return nil, nil, err
	}
	if o.trace == "" {
		if o.skipInvalid {
			return nil, nil, fmt.Errorf("--skip-invalid needs --trace")
		}
		return sc, nil, nil
	}
	newSource, err := openJobTrace(o.trace, sc, o.skipInvalid, o.stderr)
	return sc, newSource, err
}

func runCommand(out io.Writer, o options) error {
	sc, newSource, err := prepare(o)
	if err != nil {
		return err
	}
	policy, seed, dir, top := o.policy, o.seed, o.dir, o.top
	if _, err := sim.NewPolicy(policy, sc); err != nil {
		return err
	}
	spec := sim.RunSpec{Policy: policy, Seed: seed}
	if newSource != nil {
		if spec.Source, err = newSource(); err != nil {
			return err
		}
	}
	if p := newProgress(o.stderr, "run "+policy, 1); p != nil {
		spec.Progress = func(now, end sim.Time) { p(0, now, end) }
	}
	w, err := sim.Execute(sc, spec)
	if err != nil {
		return err
	}
	data := w.Measured()
	run := results.Summarize(data)
	summary := results.Summary{Schema: "evalsched-summary", SchemaVersion: results.SchemaVersion,
		Scenario: sc.Name, Seed: seed, Runs: []results.Run{run}, Invocation: o.invocation("run")}
	if err := results.WriteOutputs(dir, summary, sc.Catalogue(), []results.RunData{data}); err != nil {
		return err
	}
	fmt.Fprintf(out, "scenario %s, policy %s, seed %d: %d jobs arrived, %d completed, window %.0f-%.0f s\n",
		sc.Name, policy, seed, run.JobsArrived, run.JobsCompleted, run.Window[0], run.Window[1])
	if err := results.WriteRunTable(out, run, top); err != nil {
		return err
	}
	results.WriteProductionTable(out, summary)
	fmt.Fprintf(o.stderr, "wrote %s/summary.json and %s/series.csv\n", dir, dir)
	return nil
}

func compareCommand(out io.Writer, o options) error {
	sc, newSource, err := prepare(o)
	if err != nil {
		return err
	}
	seed, dir, top := o.seed, o.dir, o.top
	names := []string{"fixed-lane", "scheduler"}
	worlds, err := sim.Compare(sc, seed, names, newSource, newProgress(o.stderr, "compare", len(names)))
	if err != nil {
		return err
	}
	var runs []results.Run
	var data []results.RunData
	for _, w := range worlds {
		d := w.Measured()
		data = append(data, d)
		runs = append(runs, results.Summarize(d))
	}
	rows := results.Compare(runs[0], runs[1])
	summary := results.Summary{Schema: "evalsched-summary", SchemaVersion: results.SchemaVersion,
		Scenario: sc.Name, Seed: seed, Runs: runs, Comparison: rows, Invocation: o.invocation("compare")}
	if o.seeds > 1 {
		// Further seeds, one pair at a time (each pair already uses two cores);
		// only their comparisons are kept.
		perSeed := [][]results.LaneComparison{rows}
		summary.Seeds = []uint64{seed}
		for k := 1; k < o.seeds; k++ {
			ws, err := sim.Compare(sc, seed+uint64(k), names, newSource, newProgress(o.stderr, fmt.Sprintf("seed %d", seed+uint64(k)), len(names)))
			if err != nil {
				return err
			}
			perSeed = append(perSeed, results.Compare(results.Summarize(ws[0].Measured()), results.Summarize(ws[1].Measured())))
			summary.Seeds = append(summary.Seeds, seed+uint64(k))
		}
		summary.MultiplierAcrossSeeds = results.MultiplierCI(perSeed)
	}
	if err := results.WriteOutputs(dir, summary, sc.Catalogue(), data); err != nil {
		return err
	}
	fmt.Fprintf(out, "scenario %s, seed %d: old = %s, new = %s, window %.0f-%.0f s\n",
		sc.Name, seed, names[0], names[1], runs[0].Window[0], runs[0].Window[1])
	if err := results.WriteCompareTable(out, runs[0], runs[1], rows, top); err != nil {
		return err
	}
	if len(summary.MultiplierAcrossSeeds) > 0 {
		fmt.Fprintf(out, "multiplier over seeds %d..%d (mean and 95%% confidence interval):\n", seed, seed+uint64(o.seeds)-1)
		if err := results.WriteMultiplierTable(out, summary.MultiplierAcrossSeeds, top); err != nil {
			return err
		}
	}
	for i, r := range runs {
		f := r.Fairness
		fmt.Fprintf(out, "%-10s  jain %.3f  small batches behind large: %d, makespan p50 %.0f s p90 %.0f s  tier shares: %s\n",
			names[i], f.JainMean, f.BehindLarge, f.BehindLargeMakespan.P50, f.BehindLargeMakespan.P90, results.FormatTierShares(f.TierShares))
	}
	results.WriteProductionTable(out, summary)
	fmt.Fprintf(o.stderr, "wrote %s/summary.json and %s/series.csv\n", dir, dir)
	return nil
}
