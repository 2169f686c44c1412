package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/sim"
	"github.com/evalsched/lab/workloads"
	"github.com/urfave/cli/v2"
)

// traceCommand is `sim trace`: write, check and describe job traces (see
// workloads/TRACE_FORMAT.md) and public request traces.
func traceCommand() *cli.Command {
	scenario := func() *cli.StringFlag {
		return &cli.StringFlag{Name: "scenario", Usage: "scenario YAML file, or the name of an embedded one: its model catalogue and behaviour classes", Value: sim.DefaultScenario}
	}
	return &cli.Command{
		Name:  "trace",
		Usage: "write, validate and describe job traces (JSON Lines or CSV) and public request traces",
		Subcommands: []*cli.Command{{
			Name:      "gen",
			Usage:     "write the job stream a scenario's generator makes for a seed as a trace",
			UsageText: "sim trace gen [--scenario FILE] [--seed N] --out FILE [--format jsonl|csv]",
			Flags: []cli.Flag{scenario(),
				&cli.Uint64Flag{Name: "seed", Usage: "random seed of the generator", Value: 1},
				&cli.StringFlag{Name: "out", Usage: "trace file to write (written to a temporary file, then renamed)", Required: true},
				&cli.StringFlag{Name: "format", Usage: "jsonl or csv (default: from the extension of --out, else jsonl)"}},
			Action: func(c *cli.Context) error {
				if c.NArg() > 0 {
					return fmt.Errorf("trace gen: unexpected argument %q", c.Args().First())
				}
				return traceGen(c.App.Writer, c.String("scenario"), c.Uint64("seed"), c.String("out"), c.String("format"))
			},
		}, {
			Name:      "validate",
			Usage:     "check a job trace against a scenario: print every bad record (FILE:LINE: field: problem) and a count; exit 1 if any",
			UsageText: "sim trace validate [--scenario FILE] [--format jsonl|csv] TRACEFILE",
			Flags: []cli.Flag{scenario(),
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
			UsageText: "sim trace stats [--scenario FILE] [--format jsonl|csv|azure|mooncake] [--bucket 10m] [--top N] TRACEFILE",
			Flags: []cli.Flag{scenario(),
				&cli.StringFlag{Name: "format", Usage: "jsonl, csv, azure or mooncake (default: from the extension and the first line)"},
				&cli.DurationFlag{Name: "bucket", Usage: "width of the arrival-rate buckets", Value: 10 * time.Minute},
				&cli.IntFlag{Name: "top", Usage: "rows of the per-model and per-project tables, busiest first (0 = all)", Value: 20}},
			Action: func(c *cli.Context) error {
				path, err := traceArg(c)
				if err != nil {
					return err
				}
				return traceStats(c.App.Writer, c.String("scenario"), path, c.String("format"), c.Duration("bucket"), c.Int("top"))
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
func traceGen(stdout io.Writer, scenario string, seed uint64, out, format string) error {
	if format == "" {
		format = "jsonl"
		if f, err := workloads.TraceFormat(out, ""); err == nil {
			format = f
		}
	}
	if _, err := workloads.TraceFormat(out, format); err != nil {
		return err
	}
	sc, err := sim.LoadScenario(scenario)
	if err != nil {
		return err
	}
	gen, err := workloads.NewGenerator(sc.Workload, sc.Catalogue(), sc.Duration, seed)
	if err != nil {
		return fmt.Errorf("%s: workload: %w", sc.File(), err)
	}
	var n int
	err = results.WriteAtomic(out, func(w io.Writer) error {
		var err error
		n, err = workloads.WriteTrace(w, format, gen, sc.Catalogue(), workloads.ClassNames(gen.Classes()))
		return err
	})
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
func traceValidate(stdout io.Writer, scenario, path, format string) error {
	sc, err := sim.LoadScenario(scenario)
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

func traceValidateFile(path, format string, sc *sim.Scenario) (workloads.TraceReport, error) {
	classes, err := workloads.BehaviourClasses(sc.Workload)
	if err != nil {
		return workloads.TraceReport{}, err
	}
	f, err := os.Open(path)
	if err != nil {
		return workloads.TraceReport{}, err
	}
	defer f.Close()
	return workloads.ValidateTrace(bufio.NewReaderSize(f, 1<<20), path, format, sc.Catalogue(), classes)
}

// openJobTrace prepares a job trace for runs: it validates the whole file
// first, refusing a bad one with its error list, or, with skipInvalid,
// reporting to stderr what will be skipped. It returns a factory that opens
// a fresh streaming reader on each call (compare runs each simulation on its
// own). A reader closes its file when it reaches the end or an error.
func openJobTrace(path string, sc *sim.Scenario, skipInvalid bool, stderr io.Writer) (func() (workloads.Source, error), error) {
	format, err := workloads.TraceFormat(path, "")
	if err != nil {
		return nil, err
	}
	rep, err := traceValidateFile(path, format, sc)
	if err != nil {
		return nil, err
	}
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
		return nil, errors.New(b.String())
	} else if n > 0 {
		fmt.Fprintf(stderr, "%s: skipping %d bad records (of %d):\n", path, n, rep.Records)
		for _, e := range rep.Errors {
			fmt.Fprintf(stderr, "  %v\n", e)
		}
	}
	if rep.Valid == 0 {
		return nil, fmt.Errorf("%s: no jobs", path)
	}
	if rep.Last >= sc.Duration {
		fmt.Fprintf(stderr, "%s: arrivals run to %.0f s, past the scenario's duration (%.0f s); later jobs are not simulated\n",
			path, rep.Last.Seconds(), sc.Duration.Seconds())
	}
	classes, err := workloads.BehaviourClasses(sc.Workload)
	if err != nil {
		return nil, err
	}
	catalogue := sc.Catalogue()
	// Skipping the records validation found needs the same duplicate check.
	opts := workloads.TraceOptions{SkipInvalid: skipInvalid, UniqueIDs: len(rep.Errors) > 0,
		OnSkip: func(*workloads.TraceError) {}}
	return func() (workloads.Source, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		r := workloads.NewTraceReader(bufio.NewReaderSize(f, 1<<20), path, format, catalogue, classes, opts)
		return &traceFileSource{r: r, f: f}, nil
	}, nil
}

// traceFileSource closes its file when the stream ends.
type traceFileSource struct {
	r *workloads.TraceReader
	f *os.File
}

func (s *traceFileSource) Next() (workloads.Job, bool) {
	j, ok := s.r.Next()
	if !ok && s.f != nil {
		s.f.Close()
		s.f = nil
	}
	return j, ok
}

func (s *traceFileSource) Err() error { return s.r.Err() }

// traceSniff tells a request trace from a job trace by its first line when
// no format is given: an Azure header, or a JSON line with "timestamp".
func traceSniff(path, format string) (string, error) {
	if format != "" {
		return format, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	first, _ := bufio.NewReader(f).ReadString('\n')
	first = strings.TrimPrefix(first, "\ufeff")
	switch {
	case strings.HasPrefix(first, "TIMESTAMP,") || strings.Contains(first, ",ContextTokens,"):
		return "azure", nil
	case strings.HasPrefix(strings.TrimSpace(first), "{") && strings.Contains(first, `"timestamp"`) && !strings.Contains(first, `"v"`):
		return "mooncake", nil
	}
	return workloads.TraceFormat(path, "")
}

// traceStats describes a job trace or a request trace.
func traceStats(out io.Writer, scenario, path, format string, bucket time.Duration, top int) error {
	if bucket <= 0 {
		return fmt.Errorf("bucket: must be > 0, got %v", bucket)
	}
	format, err := traceSniff(path, format)
	if err != nil {
		return err
	}
	if format == "azure" || format == "mooncake" {
		return requestStats(out, path, format, bucket)
	}
	sc, err := sim.LoadScenario(scenario)
	if err != nil {
		return err
	}
	classes, err := workloads.BehaviourClasses(sc.Workload)
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	names := workloads.ClassNames(classes)
	catalogue := sc.Catalogue()
	r := workloads.NewTraceReader(bufio.NewReaderSize(f, 1<<20), path, format, catalogue, classes, workloads.TraceOptions{SkipInvalid: true})

	perModel := make([]int, len(catalogue))
	perProject := map[string]int{}
	perTier := map[int8]int{}
	perClass := map[string]int{}
	var rate traceBuckets
	callsPerJob, tokIn, tokOut := newTraceSample(1), newTraceSample(2), newTraceSample(3)
	var agent workloads.Agent
	src := rand.NewPCG(0, 0)
	jobs, graded := 0, 0
	var first, last time.Duration
	for j, ok := r.Next(); ok; j, ok = r.Next() {
		if jobs == 0 {
			first = j.Arrival
		}
		last = j.Arrival
		jobs++
		perModel[j.Model]++
		perProject[j.Project]++
		perTier[traceTier(j)]++
		rate.add(j.Arrival, bucket)
		if j.Judge >= 0 {
			graded++
		}
		if j.Behaviour.Plan != nil {
			perClass["(plan)"]++
		} else {
			perClass[names[j.Behaviour]]++
		}
		// The calls this job makes: a plan's, or those its class draws with
		// its seed (the same draws the simulator makes).
		agent.Start(j.Behaviour, j.Seed, src)
		calls := 0
		for n, ok := agent.NextTurn(src); ok; n, ok = agent.NextTurn(src) {
			for k := 0; k < n; k++ {
				in, o, _ := agent.NextCall(src)
				tokIn.add(float64(in))
				tokOut.add(float64(o))
			}
			calls += n
			agent.EndTurn(src)
		}
		callsPerJob.add(float64(calls))
	}
	if err := r.Err(); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: %d jobs, arrivals %.1f-%.1f s, %d with a grading job", path, jobs, first.Seconds(), last.Seconds(), graded)
	if n := r.SkippedCount(); n > 0 {
		fmt.Fprintf(out, "; %d bad records skipped (sim trace validate lists them)", n)
	}
	fmt.Fprintln(out)

	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	section := func(title string) { fmt.Fprintf(tw, "\n%s\n", title) }
	section("jobs per model")
	fmt.Fprintf(tw, "model\tjobs\tshare\t\n")
	var models []int
	for i, n := range perModel {
		if n > 0 {
			models = append(models, i)
		}
	}
	sort.SliceStable(models, func(a, b int) bool { return perModel[models[a]] > perModel[models[b]] })
	for i, m := range models {
		if top > 0 && i == top {
			fmt.Fprintf(tw, "(%d more)\t\t\t\n", len(models)-top)
			break
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t\n", catalogue[m], perModel[m], traceShare(perModel[m], jobs))
	}
	fmt.Fprintf(tw, "(all)\t%d\t\t\n", jobs)

	section("jobs per project")
	projects := make([]string, 0, len(perProject))
	for p := range perProject {
		projects = append(projects, p)
	}
	sort.Slice(projects, func(a, b int) bool {
		pa, pb := perProject[projects[a]], perProject[projects[b]]
		return pa > pb || pa == pb && projects[a] < projects[b]
	})
	fmt.Fprintf(tw, "project\tjobs\tshare\t\n")
	for i, p := range projects {
		if top > 0 && i == top {
			fmt.Fprintf(tw, "(%d more)\t\t\t\n", len(projects)-top)
			break
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t\n", p, perProject[p], traceShare(perProject[p], jobs))
	}

	section("jobs per tier (effective: the batch's, else the project's, else the account's)")
	fmt.Fprintf(tw, "tier\tjobs\tshare\t\n")
	tiers := make([]int, 0, len(perTier))
	for t := range perTier {
		tiers = append(tiers, int(t))
	}
	sort.Ints(tiers)
	for _, t := range tiers {
		label := fmt.Sprint(t)
		if t == 0 {
			label = "none"
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t\n", label, perTier[int8(t)], traceShare(perTier[int8(t)], jobs))
	}

	section("jobs per behaviour")
	fmt.Fprintf(tw, "class\tjobs\tshare\t\n")
	for _, c := range traceSortedKeys(perClass) {
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t\n", c, perClass[c], traceShare(perClass[c], jobs))
	}

	section(fmt.Sprintf("arrivals per %v", bucket))
	rate.write(tw, bucket, "jobs")

	section("calls per job and tokens per call (class jobs: drawn from the class with the job's seed, as the simulator does)")
	fmt.Fprintf(tw, "\tmean\tp50\tp90\tmax\t\n")
	callsPerJob.row(tw, "calls per job")
	tokIn.row(tw, "input tokens per call")
	tokOut.row(tw, "output tokens per call")
	if callsPerJob.n > int64(len(callsPerJob.keep)) || tokIn.n > int64(len(tokIn.keep)) {
		fmt.Fprintf(tw, "(percentiles from a uniform sample of %d values of each)\n", len(tokIn.keep))
	}
	return tw.Flush()
}

// requestStats describes a public request trace.
func requestStats(out io.Writer, path, format string, bucket time.Duration) error {
	src, closer, err := workloads.OpenRequestTrace(path, format, workloads.ReplayOptions{})
	if err != nil {
		return err
	}
	defer closer.Close()
	var rate traceBuckets
	in, outTok := newTraceSample(1), newTraceSample(2)
	n := 0
	var last time.Duration
	for c, ok := src.Next(); ok; c, ok = src.Next() {
		n++
		last = c.Arrival
		rate.add(c.Arrival, bucket)
		in.add(float64(c.In))
		outTok.add(float64(c.Out))
	}
	if err := src.Err(); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s (%s): %d requests over %.1f s, %.2f requests/s\n", path, format, n, last.Seconds(), float64(n)/math.Max(last.Seconds(), 1e-9))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\nrequests per %v\n", bucket)
	rate.write(tw, bucket, "requests")
	fmt.Fprintf(tw, "\ntokens per request\n\tmean\tp50\tp90\tmax\t\n")
	in.row(tw, "input")
	outTok.row(tw, "output")
	fmt.Fprintf(tw, "total input\t%.0f\t\t\t\t\ntotal output\t%.0f\t\t\t\t\n", in.sum, outTok.sum)
	return tw.Flush()
}

// traceTier is the tier that applies to a job: the most specific level set.
func traceTier(j workloads.Job) int8 {
	switch {
	case j.BatchTier != 0:
		return j.BatchTier
	case j.ProjectTier != 0:
		return j.ProjectTier
	}
	return j.AccountTier
}

func traceShare(n, total int) float64 {
	if total == 0 {
		return 0
	}
	return 100 * float64(n) / float64(total)
}

func traceSortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// traceBuckets counts arrivals per fixed-width bucket from time 0.
type traceBuckets struct{ n []int }

func (b *traceBuckets) add(at, width time.Duration) {
	i := int(at / width)
	for len(b.n) <= i {
		b.n = append(b.n, 0)
	}
	b.n[i]++
}

func (b *traceBuckets) write(w io.Writer, width time.Duration, what string) {
	fmt.Fprintf(w, "from\tto\t%s\tper hour\t\n", what)
	for i, n := range b.n {
		from, to := time.Duration(i)*width, time.Duration(i+1)*width
		fmt.Fprintf(w, "%v\t%v\t%d\t%.0f\t\n", from, to, n, float64(n)/width.Hours())
	}
}

// traceSample keeps the exact mean and maximum of a stream and a uniform
// reservoir sample of it for percentiles, so stats run in bounded memory.
type traceSample struct {
	n    int64
	sum  float64
	max  float64
	keep []float64
	rng  *rand.Rand
}

const traceReservoir = 200000

func newTraceSample(seed uint64) *traceSample {
	return &traceSample{rng: rand.New(rand.NewPCG(seed, 0x7374617473))}
}

func (s *traceSample) add(v float64) {
	s.n++
	s.sum += v
	s.max = math.Max(s.max, v)
	if len(s.keep) < traceReservoir {
		s.keep = append(s.keep, v)
	} else if k := s.rng.Int64N(s.n); k < traceReservoir {
		s.keep[k] = v
	}
}

func (s *traceSample) row(w io.Writer, label string) {
	if s.n == 0 {
		fmt.Fprintf(w, "%s\tn/a\tn/a\tn/a\tn/a\t\n", label)
		return
	}
	sort.Float64s(s.keep)
	q := func(p float64) float64 { // nearest rank
		i := int(math.Ceil(p*float64(len(s.keep)))) - 1
		return s.keep[max(i, 0)]
	}
	fmt.Fprintf(w, "%s\t%.1f\t%.0f\t%.0f\t%.0f\t\n", label, s.sum/float64(s.n), q(0.5), q(0.9), s.max)
}
