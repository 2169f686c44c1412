package cli

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evalsched/lab/lab"
	"github.com/evalsched/lab/report"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/sim"
	"github.com/evalsched/lab/workloads"
	"github.com/urfave/cli/v2"
)

func newApp() *cli.App {
	scenarioFlag := &cli.StringFlag{Name: "scenario", Usage: "scenario YAML file, or the name of an embedded one (" + strings.Join(scenario.EmbeddedNames(), ", ") + ")", Value: scenario.DefaultScenario, EnvVars: []string{"SIM_SCENARIO"}}
	seedFlag := &cli.Uint64Flag{Name: "seed", Usage: "random seed: the same scenario and seed give the same results", Value: 1, EnvVars: []string{"SIM_SEED"}}
	outFlag := &cli.StringFlag{Name: "out", Usage: outHelp(runOutputs, "; with --report also "+andList(reportOutputs)+"; a shard of compare --seeds writes "+andList(shardOutputs)+" in DIR/shard-I"), Value: "out", EnvVars: []string{"SIM_OUT"}}
	topFlag := &cli.IntFlag{Name: "top", Usage: "lanes to show in the table, busiest first (0 = all)", Value: 15}
	traceFlag := &cli.StringFlag{Name: "trace", Usage: "replay this job trace (JSONL or CSV, see docs/reference/traces.md) instead of the scenario's generator"}
	skipFlag := &cli.BoolFlag{Name: "skip-invalid", Usage: "with --trace: skip bad records (listed on stderr) instead of refusing the trace"}
	reportFlag := &cli.BoolFlag{Name: "report", Usage: "also write report.html, report.md and figures/ into --out (as sim report does)"}
	jsonFlag := &cli.BoolFlag{Name: "json", Usage: "print summary.json on stdout instead of the tables"}
	otlpFlag := &cli.StringFlag{Name: "otlp", Usage: "also write the jobs and their calls as OpenTelemetry GenAI spans (OTLP/JSON lines, for Jaeger or Grafana Tempo) to this file; compare: the first seed's runs, one resource each"}
	profileFlags, startProfile, stopProfile := profiling()
	app := &cli.App{
		Name:                 "sim",
		Version:              stampedVersion(),
		EnableBashCompletion: true,
		ErrWriter:            os.Stderr,
		Usage:                "discrete-event lab for LLM-evaluation job scheduling",
		Flags: append(profileFlags, &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, EnvVars: []string{"SIM_QUIET"},
			Usage: "draw no progress bar (none is drawn either when stderr is not a terminal)"}),
		Before: func(c *cli.Context) error {
			progressOff.Store(c.Bool("quiet"))
			return startProfile(c)
		},
		After: stopProfile,
		Commands: []*cli.Command{{
			Name:      "run",
			Usage:     "run one policy on a scenario and print the per-lane table",
			UsageText: "sim run [--scenario FILE] [--policy NAME] [--seed N] [--out DIR] [--trace FILE [--skip-invalid]] [--otlp FILE]",
			Flags: append(budgetFlags(), scenarioFlag, seedFlag, outFlag, topFlag, traceFlag, skipFlag, reportFlag, jsonFlag, otlpFlag,
				&cli.StringFlag{Name: "policy", Usage: "policy: " + strings.Join(scenario.PolicyNames(), " or "), Value: "fixed-lane"}),
			Action: func(c *cli.Context) error {
				if p := c.String("policy"); !scenario.IsPolicy(p) {
					return usageErrorf(c, "--policy: unknown %q (have %s)", p, strings.Join(scenario.PolicyNames(), ", "))
				}
				budget, err := budgetOf(c)
				if err != nil {
					return err
				}
				return runCommand(c.App.Writer, options{budget: budget, stderr: c.App.ErrWriter, scenario: c.String("scenario"), seed: c.Uint64("seed"), dir: c.String("out"),
					top: c.Int("top"), trace: c.String("trace"), skipInvalid: c.Bool("skip-invalid"), policy: c.String("policy"), json: c.Bool("json"), report: c.Bool("report"),
					otlp: c.String("otlp")})
			},
		}, {
			Name:      "compare",
			Usage:     "run the fixed-lane baseline and the scheduler on the identical job stream, in parallel, and compare lane by lane",
			UsageText: "sim compare [--scenario FILE] [--seed N] [--seeds K [--shard I/N]] [--variant A --variant B ... | --policy A --policy B ...] [--out DIR] [--trace FILE [--skip-invalid]] [--otlp FILE]",
			Flags: append(budgetFlags(), scenarioFlag, seedFlag, outFlag, topFlag, traceFlag, skipFlag, reportFlag, jsonFlag, otlpFlag,
				&cli.IntFlag{Name: "seeds", Usage: "also run seeds N+1 .. N+K-1 and report each lane's multiplier as a mean with a 95% confidence interval", Value: 1},
				&cli.StringSliceFlag{Name: "variant", Usage: "run these scenario variants (repeat the flag; the first is the baseline) instead of fixed-lane and scheduler"},
				&cli.StringSliceFlag{Name: "policy", Usage: "run these policies (repeat the flag; the first is the baseline) instead of fixed-lane and scheduler: " + strings.Join(scenario.PolicyNames(), ", ")},
				shardFlag),
			Action: compareAction,
		}, traceCommand(), reportCommand(), quotaCheckCommand(), gateCommand(), sweepCommand(), tuneCommand(), mergeCommand(),
			studyCommand(scenarioFlag, seedFlag), scenariosCommand(), completionCommand()},
	}
	strict(app)
	return app
}

// options are the flags run and compare share.
type options struct {
	scenario, policy, dir, trace string
	seed                         uint64
	top                          int
	seeds                        int // compare: how many seeds, from seed on
	skipInvalid                  bool
	json                         bool     // print summary.json on stdout instead of the tables
	report                       bool     // --report: the report written into the same staged directory
	variants                     []string // compare: scenario variants, the first the baseline
	policies                     []string // compare: policies, the first the baseline
	shard                        lab.Shard
	stderr                       io.Writer // the app's ErrWriter: progress and "wrote" lines
	budget                       scenario.Budget
	usage                        string // the command's usage, for a bad --variant
	otlp                         string // --otlp: the spans file, "" none
}

// prepare loads the scenario and, with --trace, opens the trace for the
// runs (openJobTrace: validated beside them, or first with --skip-invalid).
func prepare(o options) (*scenario.Scenario, *workloads.Replay, error) {
	sc, err := scenario.LoadScenario(o.scenario)
	if err != nil {
		return nil, nil, err
	}
	if err := sc.SetBudget(o.budget, o.trace != ""); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", sc.File(), err)
	}
	if o.stderr != nil {
		warnScenario(o.stderr, sc)
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
	// An --out the run could not be swapped into is refused before the
	// scenario and trace are read (results.StageDir checks it again, with
	// the lock held, before the run).
	if err := results.CheckOutDir(o.dir); err != nil {
		return err
	}
	sc, trace, err := prepare(o)
	if err != nil {
		return err
	}
	policy, seed, dir, top := o.policy, o.seed, o.dir, o.top
	if err := scenario.CheckPolicy(policy, sc); err != nil {
		return err
	}
	spec := sim.RunSpec{Policy: policy, Seed: seed}
	if p := newProgress(o.stderr, "run "+policy, 1); p != nil {
		spec.Progress = func(now, end sim.Time) { p(0, now, end) }
	}
	done, err := simulate(sc, dir, []sim.RunSpec{spec}, 1, trace, o)
	if err != nil {
		return err
	}
	run := done.runs[0]
	summary := results.Summary{Schema: "evalsched-summary", SchemaVersion: results.SchemaVersion,
		Scenario: sc.Name, Seed: seed, Runs: []results.Run{run}, Invocation: o.invocation("run")}
	headline := results.NewHeadline(sc.Name, seed, [][]results.Run{{run}})
	if err := done.commit(summary, &headline); err != nil {
		return err
	}
	if o.json {
		return printSummary(out, o.stderr, dir, done.wroteLine)
	}
	wrapped := report.NewLineWrapper(out) // every line within report.TerminalColumns
	defer wrapped.Flush()
	out = wrapped
	writeHeadline(out, headline)
	fmt.Fprintf(out, "scenario %s, policy %s, seed %d: %d jobs arrived, %d completed, window %.0f-%.0f s\n",
		sc.Name, policy, seed, run.JobsArrived, run.JobsCompleted, run.Window[0], run.Window[1])
	if err := report.WriteRunTable(out, run, top); err != nil {
		return err
	}
	if err := report.WriteRunBillTable(out, run, top); err != nil {
		return err
	}
	if err := report.WriteBatchTable(out, []results.Run{run}); err != nil {
		return err
	}
	report.WriteProductionTable(out, summary)
	done.wroteLine(o.stderr)
	return nil
}

// simulated is the runs of one command, summarised, with their outputs
// streamed so far.
type simulated struct {
	runs   []results.Run
	out    *results.OutputWriter
	dir    string
	report bool
	stderr io.Writer
	otlp   *otlpOut // --otlp, nil without
	files  []string // what commit wrote into dir
}

// wroteLine is the command's last line: every file it wrote.
func (s *simulated) wroteLine(w io.Writer) {
	var spans string
	if s.otlp != nil {
		spans = s.otlp.target + " (--otlp)"
	}
	wrote(w, s.dir, s.files, spans)
}

// simulate runs specs in parallel (sim.ExecuteAll), on trace's jobs if
// given; the rows of the first written of them stream into dir's
// series.csv and batches.csv, which commit completes with summary.json. On
// error, or when the trace's validation (beside the runs) refuses it,
// nothing is left in dir.
func simulate(sc *scenario.Scenario, dir string, specs []sim.RunSpec, written int, trace *workloads.Replay, o options) (*simulated, error) {
	stderr := o.stderr
	policies := make([]string, written)
	for i := range policies {
		policies[i] = specs[i].Label()
	}
	if o.otlp == "-" {
		return nil, errOTLPStdout
	}
	ow, err := results.NewOutputWriter(dir, sc.Catalogue(), policies)
	if err != nil {
		return nil, err
	}
	var spans *otlpOut
	if o.otlp != "" {
		if spans, err = newOTLPOut(o.otlp, sc, specs, written); err != nil {
			ow.Abort()
			return nil, err
		}
	}
	for i := range specs {
		specs[i].Rows = results.Discard
		if i < written {
			specs[i].Rows = ow.Run(i)
			ow.Run(i).UseModels(specs[i].ScenarioFor(sc).Catalogue()) // a variant may add models
		}
	}
	runs, err := sim.ExecuteAll(sc, specs, trace.Sources())
	if verr := trace.Verdict(stderr); verr != nil {
		err = verr // a refused trace is why the runs stopped, if they did
	}
	if err == nil {
		err = distinctNames(specs, runs)
	}
	if err != nil {
		ow.Abort()
		if spans != nil {
			spans.abort()
		}
		return nil, err
	}
	return &simulated{runs: runs, out: ow, dir: dir, report: o.report, stderr: stderr, otlp: spans}, nil
}

// commit writes the headline (if any) and summary.json beside the
// streamed files and, with --report, the report into the same staging
// directory, then swaps the directory in: the run and its report are
// replaced together or not at all.
func (s *simulated) commit(summary results.Summary, headline *results.Headline) error {
	if s.otlp != nil {
		if err := s.otlp.commit(); err != nil {
			s.out.Abort()
			return err
		}
	}
	if headline != nil {
		if err := s.out.WriteJSON(results.HeadlineFile, *headline); err != nil {
			s.out.Abort()
			return err
		}
	}
	stage, err := s.out.Finish(summary)
	if err != nil {
		return err
	}
	if s.report {
		if err := report.WriteReportStaged(stage, s.dir, toolVersion()); err != nil {
			stage.Abort()
			return fmt.Errorf("report: %w", err)
		}
	}
	if err := stage.Commit(); err != nil {
		return err
	}
	s.files = slices.Clone(runOutputs)
	if headline == nil { // a compare shard: no headline, its seeds' runs whole
		s.files = slices.Clone(shardOutputs)
	}
	if s.report {
		s.files = append(s.files, reportOutputs...)
	}
	return nil
}

func compareCommand(out io.Writer, o options) error {
	shardDir := o.dir
	if o.shard.N > 1 {
		shardDir = filepath.Join(o.dir, fmt.Sprintf("shard-%d", o.shard.I))
	}
	if err := results.CheckOutDir(shardDir); err != nil { // as run does
		return err
	}
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
	plan, err := lab.PlanCompare(arms, seed, seeds, sh, progressOf(o.stderr, "compare"))
	if err != nil {
		return err
	}
	if sh.N > 1 {
		dir = filepath.Join(dir, fmt.Sprintf("shard-%d", sh.I))
	}
	done, err := simulate(sc, dir, plan.Specs, plan.Written, trace, o)
	if err != nil {
		return err
	}
	owned, bySeed := plan.Owned, plan.BySeed(done.runs)
	summary := lab.CompareSummary(sc.Name, seed+uint64(owned[0]), bySeed, len(o.variants) > 0, o.invocation("compare"))
	if sh.N > 1 {
		return commitCompareShard(done, summary, lab.CompareShard{Schema: "evalsched-compare-shard", Shard: sh.String(),
			Scenario: sc.Name, Digest: sc.DigestWithVariants(), First: seed, Seeds: seeds, Variants: len(o.variants) > 0, Invocation: summary.Invocation}, owned, bySeed, o.stderr, dir)
	}
	headline := results.NewHeadline(sc.Name, seed, bySeed)
	if err := done.commit(summary, &headline); err != nil {
		return err
	}
	if o.json {
		return printSummary(out, o.stderr, dir, done.wroteLine)
	}
	wrapped := report.NewLineWrapper(out) // every line within report.TerminalColumns
	defer wrapped.Flush()
	out = wrapped
	writeHeadline(out, headline)
	if err := writeComparison(out, sc, o, summary); err != nil {
		return err
	}
	report.WriteProductionTable(out, summary)
	report.WriteRemedyTable(out, summary)
	report.WriteControllerTable(out, summary)
	done.wroteLine(o.stderr)
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
	if err := done.commit(summary, nil); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "shard %s: %d of %d seeds; merge the shards with sim merge\n", cs.Shard, len(owned), cs.Seeds)
	done.wroteLine(stderr)
	return nil
}

// writeHeadline prints the verdict: its sentences, then a blank line.
func writeHeadline(out io.Writer, h results.Headline) {
	for _, s := range h.Sentences {
		fmt.Fprintln(out, s)
	}
	fmt.Fprintln(out)
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
	if err := report.WriteBillTable(out, runs, summary.Comparison, o.top); err != nil {
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
		fmt.Fprintf(out, "multiplier over seeds %d..%d (geometric mean and 95%% confidence interval; near-zero: seeds left out, their baseline under %d jobs):\n", o.seed, o.seed+uint64(o.seeds)-1, results.NearZeroCompleted)
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
	if err := report.WriteBatchTable(out, runs); err != nil {
		return err
	}
	return report.WriteFairnessTable(out, summary)
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
	if sh.N > 1 && (c.Bool("report") || c.Bool("json") || c.IsSet("otlp")) {
		return usageErrorf(c, "--shard: --report, --json and --otlp apply to the unsharded compare (the first seed's runs)")
	}
	return compareCommand(c.App.Writer, options{usage: usageOf(c), budget: budget, stderr: c.App.ErrWriter, scenario: c.String("scenario"), seed: c.Uint64("seed"), dir: c.String("out"),
		top: c.Int("top"), trace: c.String("trace"), skipInvalid: c.Bool("skip-invalid"), seeds: c.Int("seeds"),
		variants: c.StringSlice("variant"), policies: c.StringSlice("policy"), json: c.Bool("json"), shard: sh, report: c.Bool("report"),
		otlp: c.String("otlp")})
}
