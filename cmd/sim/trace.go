package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/workloads"
	"github.com/urfave/cli/v2"
)

// traceCommand is `sim trace`: write, check and describe job traces (see
// workloads/TRACE_FORMAT.md) and public request traces.
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
				return traceGen(note, c.App.Writer, c.String("scenario"), c.Uint64("seed"), c.String("out"), c.String("format"))
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
				return traceValidate(c.App.Writer, c.String("scenario"), path, c.String("format"))
			},
		}, {
			Name:      "stats",
			Usage:     "describe a job trace (jobs per model, project and tier, arrivals over time, calls per job, tokens per call) or a request trace (--format azure|mooncake)",
			UsageText: "sim trace stats [--scenario FILE] [--format jsonl|csv|azure|mooncake] [--bucket 10m] [--top N] [--json] TRACEFILE (- for stdin)",
			Flags: []cli.Flag{scenarioFlag(),
				&cli.StringFlag{Name: "format", Usage: "jsonl, csv, azure or mooncake (default: from the extension and the first line)"},
				&cli.DurationFlag{Name: "bucket", Usage: "width of the arrival-rate buckets", Value: 10 * time.Minute},
				&cli.IntFlag{Name: "top", Usage: "rows of the per-model and per-project tables, busiest first (0 = all)", Value: 20},
				&cli.BoolFlag{Name: "json", Usage: "print the statistics as JSON instead of the tables"}},
			Action: func(c *cli.Context) error {
				path, err := traceArg(c)
				if err != nil {
					return err
				}
				return traceStats(c.App.Writer, c.String("scenario"), path, c.String("format"), c.Duration("bucket"), c.Int("top"), c.Bool("json"))
			},
		}},
	}
}

func traceArg(c *cli.Context) (string, error) {
	if c.NArg() != 1 {
		return "", fmt.Errorf("trace %s: want one trace file, got %d arguments", c.Command.Name, c.NArg())
	}
	return c.Args().First(), nil
}

// traceGen writes the scenario's synthetic job stream for seed to out.
func traceGen(stdout, dash io.Writer, scenarioRef string, seed uint64, out, format string) error {
	if format == "" {
		format = "jsonl"
		if f, err := workloads.TraceFormat(out, ""); err == nil {
			format = f
		}
	}
	if _, err := workloads.TraceFormat(out, format); err != nil {
		return err
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

// traceMaxListed bounds the bad records an error message lists.
const traceMaxListed = 50

// traceValidate prints every bad record of a job trace and a count; it
// fails if there is any.
func traceValidate(stdout io.Writer, scenarioRef, path, format string) error {
	sc, err := scenario.LoadScenario(scenarioRef)
	if err != nil {
		return err
	}
	rep, err := traceValidateFile(path, format, sc)
	if err != nil {
		return err
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

func traceValidateFile(path, format string, sc *scenario.Scenario) (workloads.TraceReport, error) {
	classes, err := workloads.BehaviourClasses(sc.Workload)
	if err != nil {
		return workloads.TraceReport{}, err
	}
	in, f, err := workloads.OpenTrace(path)
	if err != nil {
		return workloads.TraceReport{}, err
	}
	defer f.Close()
	return workloads.ValidateTrace(in, path, format, sc.Catalogue(), classes)
}

// jobTrace is a job trace opened for runs: open gives each run a fresh
// streaming reader (compare runs each simulation on its own); verdict says
// what the trace's validation found.
type jobTrace struct {
	open    func() (workloads.Source, error)
	checked *traceCheck // nil: validated before the runs
}

// traceCheck is a validation running beside the runs.
type traceCheck struct {
	done    chan struct{}
	failed  atomic.Bool // set, before done closes, when the trace is refused
	err     error       // the refusal, once done
	warning string      // said on stderr once the runs are over
}

// openJobTrace prepares a job trace for runs. Without skipInvalid the whole
// file is validated beside the runs, on a goroutine of its own: the runs
// replay at once, a refusal stops them (their readers end the stream) and
// verdict returns it, with the list of bad records, before anything is
// written. With skipInvalid it is validated first, reporting to stderr what
// will be skipped, since the runs must skip exactly what validation found.
// A reader closes its file when it reaches the end or an error.
func openJobTrace(path string, sc *scenario.Scenario, skipInvalid bool, stderr io.Writer) (*jobTrace, error) {
	format, err := workloads.TraceFormat(path, "")
	if err != nil {
		return nil, err
	}
	classes, err := workloads.BehaviourClasses(sc.Workload)
	if err != nil {
		return nil, err
	}
	catalogue := sc.Catalogue()
	jt := &jobTrace{}
	opts := workloads.TraceOptions{OnSkip: func(*workloads.TraceError) {}}
	if skipInvalid {
		rep, err := traceValidateFile(path, format, sc)
		if err != nil {
			return nil, err
		}
		if n := len(rep.Errors); n > 0 {
			fmt.Fprintf(stderr, "%s: skipping %d bad records (of %d):\n", path, n, rep.Records)
			for _, e := range rep.Errors {
				fmt.Fprintf(stderr, "  %v\n", e)
			}
		}
		if err := traceRefusal(path, rep, true); err != nil {
			return nil, err
		}
		if w := traceWarning(path, rep, sc); w != "" {
			fmt.Fprintln(stderr, w)
		}
		// Skipping the records validation found needs the same duplicate check.
		opts.SkipInvalid, opts.UniqueIDs = true, len(rep.Errors) > 0
	} else {
		// Open it once here, so that a missing or unreadable file is
		// refused before any run starts.
		_, f, err := workloads.OpenTrace(path)
		if err != nil {
			return nil, err
		}
		f.Close()
		c := &traceCheck{done: make(chan struct{})}
		go func() {
			defer close(c.done)
			rep, err := traceValidateFile(path, format, sc)
			if err == nil {
				err = traceRefusal(path, rep, false)
			}
			if err != nil {
				c.err = err
				c.failed.Store(true)
				return
			}
			c.warning = traceWarning(path, rep, sc)
		}()
		jt.checked = c
	}
	jt.open = func() (workloads.Source, error) {
		in, f, err := workloads.OpenTrace(path)
		if err != nil {
			return nil, err
		}
		r := workloads.NewTraceReader(in, path, format, catalogue, classes, opts)
		return &traceFileSource{r: r, f: f, check: jt.checked}, nil
	}
	return jt, nil
}

// traceRefusal is the error that refuses a validated trace: bad records
// (unless they are to be skipped), or no job at all.
func traceRefusal(path string, rep workloads.TraceReport, skipInvalid bool) error {
	if n := len(rep.Errors); n > 0 && !skipInvalid {
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %d bad records (of %d); fix them, or skip them with --skip-invalid:", path, n, rep.Records)
		for i, e := range rep.Errors {
			if i == traceMaxListed {
				fmt.Fprintf(&b, "\n  ... and %d more (sim trace validate lists them all)", n-i)
				break
			}
			fmt.Fprintf(&b, "\n  %v", e)
		}
		return errors.New(b.String())
	}
	if rep.Valid == 0 {
		return fmt.Errorf("%s: no jobs", path)
	}
	return nil
}

// traceWarning says when a trace's arrivals run past the scenario's end.
func traceWarning(path string, rep workloads.TraceReport, sc *scenario.Scenario) string {
	if rep.Last < sc.Duration {
		return ""
	}
	return fmt.Sprintf("%s: arrivals run to %.0f s, past the scenario's duration (%.0f s); later jobs are not simulated",
		path, rep.Last.Seconds(), sc.Duration.Seconds())
}

// sources is the reader factory of the runs (nil: no trace, the scenario's
// generator).
func (jt *jobTrace) sources() func() (workloads.Source, error) {
	if jt == nil {
		return nil
	}
	return jt.open
}

// verdict waits for the validation beside the runs and returns its
// refusal; a trace that passes says its warning, if any, on stderr.
func (jt *jobTrace) verdict(stderr io.Writer) error {
	if jt == nil || jt.checked == nil {
		return nil
	}
	<-jt.checked.done
	if jt.checked.err != nil {
		return jt.checked.err
	}
	if w := jt.checked.warning; w != "" {
		fmt.Fprintln(stderr, w)
		jt.checked.warning = ""
	}
	return nil
}

// errTraceRefused ends a run whose trace its validation refused; the
// command reports the refusal itself (jobTrace.verdict).
var errTraceRefused = errors.New("the job trace was refused")

// traceFileSource replays a job trace (a run reads it ahead, on a goroutine
// of its own), closes its file when the stream ends or the run closes it,
// and ends the stream when the validation beside the runs refuses the
// trace.
type traceFileSource struct {
	r     *workloads.TraceReader
	f     io.Closer
	check *traceCheck // nil: validated before
}

func (s *traceFileSource) Next() (workloads.Job, bool) {
	if s.refused() {
		s.Close()
		return workloads.Job{}, false
	}
	j, ok := s.r.Next()
	if !ok {
		s.Close()
		if s.check != nil {
			// At the end of the trace, wait for its verdict (validation
			// reads the same file, so it is close behind): a refused trace
			// (one with no job, say) then stops the run here.
			<-s.check.done
		}
	}
	return j, ok
}

func (s *traceFileSource) refused() bool { return s.check != nil && s.check.failed.Load() }

// Close closes the file; the run calls it when it ends, which may be
// before the end of the trace.
func (s *traceFileSource) Close() error {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	return nil
}

func (s *traceFileSource) Err() error {
	if s.refused() {
		return errTraceRefused
	}
	return s.r.Err()
}

// traceSniff tells a request trace from a job trace by its first line when
// no format is given: an Azure header, or a JSON line with "timestamp".
func traceSniff(path, format string) (string, error) {
	if format != "" {
		return format, nil
	}
	if path == "-" {
		return "jsonl", nil // standard input is read once: a job trace unless --format says otherwise
	}
	in, f, err := workloads.OpenTrace(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	first, _ := bufio.NewReader(in).ReadString('\n')
	switch {
	case strings.HasPrefix(first, "TIMESTAMP,") || strings.Contains(first, ",ContextTokens,"):
		return "azure", nil
	case strings.HasPrefix(strings.TrimSpace(first), "{") && strings.Contains(first, `"timestamp"`) && !strings.Contains(first, `"v"`):
		return "mooncake", nil
	}
	return workloads.TraceFormat(path, "")
}
