package cli

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/workloads"
	"github.com/urfave/cli/v2"
)

// traceCommand is `sim trace`: write, check and describe job traces (see
// docs/reference/traces.md) and public request traces.
func traceCommand() *cli.Command {
	scenarioFlag := func() *cli.StringFlag {
		return &cli.StringFlag{Name: "scenario", Usage: "scenario YAML file, or the name of an embedded one: its model catalogue and behaviour classes", Value: scenario.DefaultScenario}
	}
	return &cli.Command{
		Name:  "trace",
		Usage: "write, validate and describe job traces (JSON Lines or CSV) and public request traces",
		Subcommands: []*cli.Command{{
			Name:      "gen",
			Usage:     "write the job stream a scenario's generator makes for a seed as a trace",
			UsageText: "sim trace gen [--scenario FILE] [--seed N] --out FILE [--format jsonl|csv]",
			Flags: []cli.Flag{scenarioFlag(),
				&cli.Uint64Flag{Name: "seed", Usage: "random seed of the generator", Value: 1},
				&cli.StringFlag{Name: "out", Usage: "trace file to write (written to a temporary file, then renamed; - or a pipe is written as a stream); required"},
				&cli.StringFlag{Name: "format", Usage: "jsonl or csv (default: from the extension of --out, else jsonl)"}},
			Action: func(c *cli.Context) error {
				note := c.App.Writer
				if c.String("out") == "-" || !results.IsRegularOrMissing(c.String("out")) {
					note = c.App.ErrWriter // the trace itself may be on stdout
				}
				format, err := workloads.ParseJobFormat(c.String("format"))
				if err != nil {
					return fmt.Errorf("--format: %w", err)
				}
				return traceGen(note, c.App.Writer, c.String("scenario"), c.Uint64("seed"), c.String("out"), format)
			},
		}, {
			Name:      "validate",
			Usage:     "check a job trace against a scenario: print every bad record (FILE:LINE: field: problem) and a count; exit 1 if any",
			UsageText: "sim trace validate [--scenario FILE] [--format jsonl|csv] TRACEFILE",
			Flags: []cli.Flag{scenarioFlag(),
				&cli.StringFlag{Name: "format", Usage: "jsonl or csv (default: from the extension)"}},
			Action: func(c *cli.Context) error {
				path, err := traceArg(c)
				if err != nil {
					return err
				}
				format, err := workloads.ParseJobFormat(c.String("format"))
				if err != nil {
					return fmt.Errorf("--format: %w", err)
				}
				return traceValidate(c.App.Writer, c.String("scenario"), path, format)
			},
		}, {
			Name:      "stats",
			Usage:     "describe a job trace (jobs per model, project and tier, arrivals over time, calls per job, tokens per call) or a request trace (--format azure|mooncake|gateway)",
			UsageText: "sim trace stats [--scenario FILE] [--format jsonl|csv|azure|mooncake|gateway] [--bucket 10m] [--top N] [--json] TRACEFILE (- for stdin)",
			Flags: []cli.Flag{scenarioFlag(),
				&cli.StringFlag{Name: "format", Usage: "jsonl, csv, azure, mooncake or gateway (default: from the extension and the first line)"},
				&cli.DurationFlag{Name: "bucket", Usage: "width of the arrival-rate buckets (at most 100000 of them over the trace's span)", Value: 10 * time.Minute},
				&cli.IntFlag{Name: "top", Usage: "rows of the per-model and per-project tables, busiest first (0 = all)", Value: 20},
				&cli.BoolFlag{Name: "json", Usage: "print the statistics as JSON instead of the tables"}},
			Action: func(c *cli.Context) error {
				path, err := traceArg(c)
				if err != nil {
					return err
				}
				return traceStats(c.App.Writer, c.String("scenario"), path, c.String("format"), c.Duration("bucket"), c.Int("top"), c.Bool("json"))
			},
		}, traceImportCommand(), traceFitCommand(), traceReplayCheckCommand()},
	}
}

func traceArg(c *cli.Context) (string, error) {
	if c.NArg() != 1 {
		return "", fmt.Errorf("trace %s: want one trace file, got %d arguments", c.Command.Name, c.NArg())
	}
	return c.Args().First(), nil
}

// traceGen writes the scenario's synthetic job stream for seed to out.
func traceGen(stdout, dash io.Writer, scenarioRef string, seed uint64, out string, format workloads.JobFormat) error {
	if format == "" {
		format = workloads.JobJSONL
		if f, err := workloads.TraceFormat(out, ""); err == nil {
			format = f
		}
	}
	if out != "-" {
		if err := results.CheckOutFile(out); err != nil { // before the trace is made
			return err
		}
	}
	sc, err := scenario.LoadScenario(scenarioRef)
	if err != nil {
		return err
	}
	gen, err := workloads.NewGenerator(sc.Workload, sc.Catalogue(), sc.Duration, seed)
	if err != nil {
		return fmt.Errorf("%s: workload: %w", sc.File(), err)
	}
	var n int
	write := func(w io.Writer) error {
		var err error
		n, err = workloads.WriteTrace(w, format, gen, sc.Catalogue(), workloads.ClassNames(gen.Classes()))
		return err
	}
	if out == "-" {
		bw := bufio.NewWriterSize(dash, 1<<16)
		if err = write(bw); err == nil {
			err = bw.Flush()
		}
		out = "stdout"
	} else {
		err = results.WriteAtomic(out, write)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d jobs (scenario %s, seed %d, %s) to %s\n", n, sc.Name, seed, format, out)
	return nil
}

// traceValidate prints every bad record of a job trace and a count; it
// fails if there is any.
func traceValidate(stdout io.Writer, scenarioRef, path string, format workloads.JobFormat) error {
	sc, err := scenario.LoadScenario(scenarioRef)
	if err != nil {
		return err
	}
	rep, err := traceValidateFile(path, format, sc)
	if err != nil {
		return err
	}
	// A trace of no record is refused as run and compare refuse it (an
	// empty .csv already is, at its missing header).
	if rep.Records == 0 {
		return fmt.Errorf("%s: no jobs: the trace holds no record", path)
	}
	for _, e := range rep.Errors {
		fmt.Fprintln(stdout, e)
	}
	fmt.Fprintf(stdout, "%s: %d records, %d good, %d bad\n", path, rep.Records, rep.Valid, len(rep.Errors))
	if len(rep.Errors) > 0 {
		return fmt.Errorf("%s: %d bad records", path, len(rep.Errors))
	}
	return nil
}

// traceValidateFile validates a job trace against sc's catalogue and
// behaviour classes.
func traceValidateFile(path string, format workloads.JobFormat, sc *scenario.Scenario) (workloads.TraceReport, error) {
	return workloads.ValidateTraceFile(path, format, replayTarget(sc))
}

// replayTarget is what a job trace is checked against: sc's catalogue,
// behaviour classes and duration.
func replayTarget(sc *scenario.Scenario) workloads.ReplayTarget {
	return workloads.ReplayTarget{Catalogue: sc.Catalogue(), Workload: sc.Workload, Horizon: sc.Duration}
}

// openJobTrace opens a job trace for runs of sc (workloads.OpenReplay).
func openJobTrace(path string, sc *scenario.Scenario, skipInvalid bool, stderr io.Writer) (*workloads.Replay, error) {
	return workloads.OpenReplay(path, replayTarget(sc), skipInvalid, stderr)
}

// traceSniff reads trace stats' --format, a job-trace or a request-trace
// format (one of the two results is set). With none given it tells a
// request trace from a job trace by its first line: an Azure header, or a
// JSON line with "timestamp" (and "model": a gateway trace).
func traceSniff(path, format string) (workloads.JobFormat, workloads.RequestFormat, error) {
	if format != "" {
		if rf, err := workloads.ParseRequestFormat(format); err == nil {
			return "", rf, nil
		}
		jf, err := workloads.ParseJobFormat(format)
		if err != nil {
			return "", "", fmt.Errorf("--format: unknown trace format %q (want jsonl, csv, azure, mooncake or gateway)", format)
		}
		return jf, "", nil
	}
	if path == "-" {
		return workloads.JobJSONL, "", nil // standard input is read once: a job trace unless --format says otherwise
	}
	in, f, err := workloads.OpenTrace(path)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	first, _ := bufio.NewReader(in).ReadString('\n')
	switch {
	case strings.HasPrefix(first, "TIMESTAMP,") || strings.Contains(first, ",ContextTokens,"):
		return "", workloads.RequestAzure, nil
	case strings.HasPrefix(strings.TrimSpace(first), "{") && strings.Contains(first, `"timestamp"`) && strings.Contains(first, `"model"`) && !strings.Contains(first, `"v"`):
		return "", workloads.RequestGateway, nil // sim trace import --from litellm
	case strings.HasPrefix(strings.TrimSpace(first), "{") && strings.Contains(first, `"timestamp"`) && !strings.Contains(first, `"v"`):
		return "", workloads.RequestMooncake, nil
	}
	jf, err := workloads.TraceFormat(path, "")
	return jf, "", err
}
