package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/evalsched/lab/lab"
	"github.com/evalsched/lab/report"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/sim"
	"github.com/urfave/cli/v2"
)

func newApp() *cli.App {
	scenarioFlag := &cli.StringFlag{Name: "scenario", Usage: "scenario YAML file, or the name of an embedded one (" + strings.Join(scenario.EmbeddedNames(), ", ") + ")", Value: scenario.DefaultScenario}
	seedFlag := &cli.Uint64Flag{Name: "seed", Usage: "random seed: the same scenario and seed give the same results", Value: 1}
	outFlag := &cli.StringFlag{Name: "out", Usage: "directory for summary.json and series.csv (created if missing)", Value: "out"}
	topFlag := &cli.IntFlag{Name: "top", Usage: "lanes to show in the table, busiest first (0 = all)", Value: 15}
	traceFlag := &cli.StringFlag{Name: "trace", Usage: "replay this job trace (JSONL or CSV, see workloads/TRACE_FORMAT.md) instead of the scenario's generator"}
	skipFlag := &cli.BoolFlag{Name: "skip-invalid", Usage: "with --trace: skip bad records (listed on stderr) instead of refusing the trace"}
	reportFlag := &cli.BoolFlag{Name: "report", Usage: "also write report.html, report.md and figures/ into --out (as sim report does)"}
	jsonFlag := &cli.BoolFlag{Name: "json", Usage: "print summary.json on stdout instead of the tables"}
	profileFlags, startProfile, stopProfile := profiling()
	app := &cli.App{
		Name:                 "sim",
		Version:              version(),
		EnableBashCompletion: true,
		ErrWriter:            os.Stderr,
		Usage:                "discrete-event lab for LLM-evaluation job scheduling",
		Flags:                profileFlags,
		Before:               startProfile,
		After:                stopProfile,
		Commands: []*cli.Command{{
			Name:      "run",
			Usage:     "run one policy on a scenario and print the per-lane table",
			UsageText: "sim run [--scenario FILE] [--policy NAME] [--seed N] [--out DIR] [--trace FILE [--skip-invalid]]",
			Flags: append(budgetFlags(), scenarioFlag, seedFlag, outFlag, topFlag, traceFlag, skipFlag, reportFlag, jsonFlag,
				&cli.StringFlag{Name: "policy", Usage: "policy: " + strings.Join(scenario.PolicyNames(), " or "), Value: "fixed-lane"}),
			Action: func(c *cli.Context) error {
				budget, err := budgetOf(c)
				if err != nil {
					return err
				}
				return withReport(c, runCommand(c.App.Writer, options{budget: budget, stderr: c.App.ErrWriter, scenario: c.String("scenario"), seed: c.Uint64("seed"), dir: c.String("out"),
					top: c.Int("top"), trace: c.String("trace"), skipInvalid: c.Bool("skip-invalid"), policy: c.String("policy"), json: c.Bool("json")}))
			},
		}, {
			Name:      "compare",
			Usage:     "run the fixed-lane baseline and the scheduler on the identical job stream, in parallel, and compare lane by lane",
			UsageText: "sim compare [--scenario FILE] [--seed N] [--seeds K [--shard I/N]] [--variant A --variant B ...] [--out DIR] [--trace FILE [--skip-invalid]]",
			Flags: append(budgetFlags(), scenarioFlag, seedFlag, outFlag, topFlag, traceFlag, skipFlag, reportFlag, jsonFlag,
				&cli.IntFlag{Name: "seeds", Usage: "also run seeds N+1 .. N+K-1 and report each lane's multiplier as a mean with a 95% confidence interval", Value: 1},
				&cli.StringSliceFlag{Name: "variant", Usage: "run these scenario variants (repeat the flag; the first is the baseline) instead of fixed-lane and scheduler"},
				shardFlag),
			Action: compareAction,
		}, traceCommand(), reportCommand(), quotaCheckCommand(), gateCommand(), sweepCommand(), tuneCommand(), mergeCommand(), studyCommand(scenarioFlag, seedFlag), {
			Name:  "scenarios",
			Usage: "list the embedded scenarios, or print one with --show NAME",
			Flags: []cli.Flag{&cli.StringFlag{Name: "show", Usage: "print this embedded scenario's YAML"}},
			Action: func(c *cli.Context) error {
				if name := c.String("show"); name != "" {
					data, err := scenario.EmbeddedYAML(name)
					if err != nil {
						return err
					}
					_, err = c.App.Writer.Write(data)
					return err
				}
				for _, n := range scenario.EmbeddedNames() {
					fmt.Fprintln(c.App.Writer, n)
				}
				return nil
			},
		}},
	}
	strict(app)
	return app
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
	json                         bool     // print summary.json on stdout instead of the tables
	variants                     []string // compare: scenario variants, the first the baseline
	shard                        lab.Shard
	stderr                       io.Writer // the app's ErrWriter: progress and "wrote" lines
	budget                       scenario.Budget
}

// prepare loads the scenario and, with --trace, opens the trace for the
// runs (openJobTrace: validated beside them, or first with --skip-invalid).
func prepare(o options) (*scenario.Scenario, *jobTrace, error) {
	sc, err := scenario.LoadScenario(o.scenario)
	if err != nil {
		return nil, nil, err
	}
	if err := sc.SetBudget(o.budget, o.trace != ""); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", sc.File(), err)
	}
	if o.trace == "" {
		if o.skipInvalid {
			return nil, nil, fmt.Errorf("--skip-invalid needs --trace")
		}
		return sc, nil, nil
	}
	trace, err := openJobTrace(o.trace, sc, o.skipInvalid, o.stderr)
	return sc, trace, err
}

func runCommand(out io.Writer, o options) error {
	sc, trace, err := prepare(o)
	if err != nil {
		return err
	}
	policy, seed, dir, top := o.policy, o.seed, o.dir, o.top
	if _, err := scenario.NewPolicy(policy, sc); err != nil {
		return err
	}
	spec := sim.RunSpec{Policy: policy, Seed: seed}
	if p := newProgress(o.stderr, "run "+policy, 1); p != nil {
		spec.Progress = func(now, end sim.Time) { p(0, now, end) }
	}
	done, err := simulate(sc, dir, []sim.RunSpec{spec}, 1, trace, o.stderr)
	if err != nil {
		return err
	}
	run := done.runs[0]
	summary := results.Summary{Schema: "evalsched-summary", SchemaVersion: results.SchemaVersion,
		Scenario: sc.Name, Seed: seed, Runs: []results.Run{run}, Invocation: o.invocation("run")}
	if err := done.commit(summary); err != nil {
		return err
	}
	if o.json {
		return printSummary(out, o.stderr, dir)
	}
	fmt.Fprintf(out, "scenario %s, policy %s, seed %d: %d jobs arrived, %d completed, window %.0f-%.0f s\n",
		sc.Name, policy, seed, run.JobsArrived, run.JobsCompleted, run.Window[0], run.Window[1])
	if err := report.WriteRunTable(out, run, top); err != nil {
		return err
	}
	report.WriteProductionTable(out, summary)
	fmt.Fprintf(o.stderr, "wrote %s/summary.json and %s/series.csv\n", dir, dir)
	return nil
}

// simulated is the runs of one command, summarised, with their outputs
// streamed so far.
type simulated struct {
	runs []results.Run
	out  *results.OutputWriter
}

// simulate runs specs in parallel (sim.ExecuteAll), on trace's jobs if
// given; the rows of the first written of them stream into dir's
// series.csv and batches.csv, which commit completes with summary.json. On
// error, or when the trace's validation (beside the runs) refuses it,
// nothing is left in dir.
func simulate(sc *scenario.Scenario, dir string, specs []sim.RunSpec, written int, trace *jobTrace, stderr io.Writer) (*simulated, error) {
	policies := make([]string, written)
	for i := range policies {
		policies[i] = specs[i].Label()
	}
	ow, err := results.NewOutputWriter(dir, sc.Catalogue(), policies)
	if err != nil {
		return nil, err
	}
	for i := range specs {
		specs[i].Rows = results.Discard
		if i < written {
			specs[i].Rows = ow.Run(i)
			ow.Run(i).UseModels(specs[i].ScenarioFor(sc).Catalogue()) // a variant may add models
		}
	}
	runs, err := sim.ExecuteAll(sc, specs, trace.sources())
	if verr := trace.verdict(stderr); verr != nil {
		err = verr // a refused trace is why the runs stopped, if they did
	}
	if err != nil {
		ow.Abort()
		return nil, err
	}
	return &simulated{runs: runs, out: ow}, nil
}

func (s *simulated) commit(summary results.Summary) error { return s.out.Commit(summary) }

func compareCommand(out io.Writer, o options) error {
	sc, trace, err := prepare(o)
	if err != nil {
		return err
	}
	arms, err := compareArms(sc, o)
	if err != nil {
		return err
	}
	seed, dir := o.seed, o.dir
	seeds := max(1, o.seeds)
	sh := o.shard
	if sh.N > seeds {
		return fmt.Errorf("--shard %s: more shards than the %d seeds", sh, seeds)
	}
	if sh.N > 1 {
		dir = filepath.Join(dir, fmt.Sprintf("shard-%d", sh.I))
	}
	// Every (owned) seed's runs at once, at most GOMAXPROCS at a time; only
	// the first seed's runs are written.
	var specs []sim.RunSpec
	var owned []int
	for k := 0; k < seeds; k++ {
		if sh.Owns(k) {
			owned = append(owned, k)
		}
	}
	progress := newProgress(o.stderr, "compare", len(arms)*len(owned))
	for _, k := range owned {
		for _, arm := range arms {
			spec := arm
			spec.Seed = seed + uint64(k)
			if progress != nil {
				i := len(specs)
				spec.Progress = func(now, end sim.Time) { progress(i, now, end) }
			}
			specs = append(specs, spec)
		}
	}
	written := len(arms)
	if owned[0] != 0 {
		written = 0
	}
	done, err := simulate(sc, dir, specs, written, trace, o.stderr)
	if err != nil {
		return err
	}
	n := len(arms)
	bySeed := make([][]results.Run, len(owned))
	for j := range owned {
		bySeed[j] = done.runs[j*n : (j+1)*n]
	}
	summary := lab.CompareSummary(sc.Name, seed+uint64(owned[0]), bySeed, len(o.variants) > 0, o.invocation("compare"))
	if sh.N > 1 {
		return commitCompareShard(done, summary, lab.CompareShard{Schema: "evalsched-compare-shard", Shard: sh.String(),
			Scenario: sc.Name, First: seed, Seeds: seeds, Variants: len(o.variants) > 0, Invocation: summary.Invocation}, owned, bySeed, o.stderr, dir)
	}
	if err := done.commit(summary); err != nil {
		return err
	}
	if o.json {
		return printSummary(out, o.stderr, dir)
	}
	if err := writeComparison(out, sc, o, summary); err != nil {
		return err
	}
	report.WriteProductionTable(out, summary)
	report.WriteRemedyTable(out, summary)
	report.WriteControllerTable(out, summary)
	fmt.Fprintf(o.stderr, "wrote %s/summary.json and %s/series.csv\n", dir, dir)
	return nil
}

// commitCompareShard writes a compare shard's directory: its seeds' runs
// whole (compare-shard.json) beside the summary of its own seeds.
func commitCompareShard(done *simulated, summary results.Summary, cs lab.CompareShard, owned []int, bySeed [][]results.Run, stderr io.Writer, dir string) error {
	cs.Runs = map[int][]results.Run{}
	for j, k := range owned {
		cs.Runs[k] = bySeed[j]
	}
	if err := done.out.WriteJSON(lab.CompareShardFile, cs); err != nil {
		done.out.Abort()
		return err
	}
	if err := done.commit(summary); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s (shard %s: %d of %d seeds; merge the shards with sim merge)\n", dir, cs.Shard, len(owned), cs.Seeds)
	return nil
}

// compareArms are the runs compare makes per seed: the named variants, in
// order (the first is the baseline), or the fixed-lane and scheduler pair.
func compareArms(sc *scenario.Scenario, o options) ([]sim.RunSpec, error) {
	variants := o.variants
	if len(variants) == 0 {
		return []sim.RunSpec{{Policy: "fixed-lane"}, {Policy: "scheduler"}}, nil
	}
	if len(variants) < 2 {
		have := "declares no variants"
		if names := sc.VariantNames(); len(names) > 0 {
			have = "has " + strings.Join(names, ", ")
		}
		return nil, fmt.Errorf("--variant: give at least two (the first is the baseline); %s %s", sc.File(), have)
	}
	var arms []sim.RunSpec
	seen := map[string]bool{}
	for _, name := range variants {
		if seen[name] {
			return nil, fmt.Errorf("--variant: %q given twice", name)
		}
		seen[name] = true
		v, err := sc.Variant(name)
		if err != nil {
			return nil, err
		}
		if err := v.Scenario.SetBudget(o.budget, o.trace != ""); err != nil {
			return nil, fmt.Errorf("variant %s: %w", name, err)
		}
		arms = append(arms, sim.RunSpec{Policy: v.Policy, Variant: v})
	}
	return arms, nil
}

// writeComparison prints compare's tables: each run after the first against
// the first, the multipliers over seeds, and fairness per run.
func writeComparison(out io.Writer, sc *scenario.Scenario, o options, summary results.Summary) error {
	runs := summary.Runs
	fmt.Fprintf(out, "scenario %s, seed %d: old = %s, new = %s, window %.0f-%.0f s\n",
		sc.Name, o.seed, runs[0].Policy, runs[1].Policy, runs[0].Window[0], runs[0].Window[1])
	if err := report.WriteCompareTable(out, runs[0], runs[1], summary.Comparison, o.top); err != nil {
		return err
	}
	for i, vc := range summary.Variants {
		if i > 0 {
			fmt.Fprintf(out, "\n%s against %s:\n", vc.Variant, vc.Baseline)
			if err := report.WriteCompareTable(out, runs[0], runs[i+1], vc.Comparison, o.top); err != nil {
				return err
			}
		}
	}
	if len(summary.MultiplierAcrossSeeds) > 0 {
		fmt.Fprintf(out, "multiplier over seeds %d..%d (mean and 95%% confidence interval):\n", o.seed, o.seed+uint64(o.seeds)-1)
		if err := report.WriteMultiplierTable(out, summary.MultiplierAcrossSeeds, o.top); err != nil {
			return err
		}
	}
	for i, vc := range summary.Variants {
		if i > 0 && len(vc.MultiplierAcrossSeeds) > 0 {
			fmt.Fprintf(out, "%s against %s, multiplier over seeds:\n", vc.Variant, vc.Baseline)
			if err := report.WriteMultiplierTable(out, vc.MultiplierAcrossSeeds, o.top); err != nil {
				return err
			}
		}
	}
	for _, r := range runs {
		fmt.Fprintln(out, report.FairnessLine(r.Policy, r.Fairness))
	}
	return nil
}

// compareAction reads compare's flags (seeds, budget, shard) and runs it.
func compareAction(c *cli.Context) error {
	if k := c.Int("seeds"); k < 1 || k > lab.MaxSeeds {
		return usageErrorf(c, "--seeds: must be in 1..%d, got %d", lab.MaxSeeds, k)
	} else if seed := c.Uint64("seed"); seed > math.MaxUint64-uint64(k-1) {
		return usageErrorf(c, "--seed %d with --seeds %d: the last seed would pass %d", seed, k, uint64(math.MaxUint64))
	}
	budget, err := budgetOf(c)
	if err != nil {
		return err
	}
	var sh lab.Shard
	if c.IsSet("shard") || c.Int("seeds") > 1 { // the array-job variables shard only a multi-seed compare
		if sh, err = shardOf(c); err != nil {
			return err
		}
	}
	if sh.N > 1 && (c.Bool("report") || c.Bool("json")) {
		return usageErrorf(c, "--shard: --report and --json apply to the merged directory (sim merge, then sim report)")
	}
	return withReport(c, compareCommand(c.App.Writer, options{budget: budget, stderr: c.App.ErrWriter, scenario: c.String("scenario"), seed: c.Uint64("seed"), dir: c.String("out"),
		top: c.Int("top"), trace: c.String("trace"), skipInvalid: c.Bool("skip-invalid"), seeds: c.Int("seeds"),
		variants: c.StringSlice("variant"), json: c.Bool("json"), shard: sh}))
}
