package cli

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/workloads"
)

// traceStats describes a job trace or a request trace.
func traceStats(out io.Writer, scenarioRef, path, format string, bucket time.Duration, top int, asJSON bool) error {
	if bucket <= 0 {
		return fmt.Errorf("bucket: must be > 0, got %v", bucket)
	}
	jobFormat, reqFormat, err := traceSniff(path, format)
	if err != nil {
		return err
	}
	if reqFormat != "" {
		return requestStats(out, path, reqFormat, bucket, asJSON)
	}
	tr, err := openTraceFor(scenarioRef, path)
	if err != nil {
		return err
	}
	defer tr.Close()
	sc, classes := tr.sc, tr.classes
	catalogue := sc.Catalogue()
	r := workloads.NewTraceReader(tr.in, path, jobFormat, catalogue, classes, workloads.TraceOptions{SkipInvalid: true})
	st := workloads.NewTraceStats(len(catalogue), workloads.ClassNames(classes), bucket)
	for j, ok := r.Next(); ok; j, ok = r.Next() {
		st.Add(j)
	}
	if err := r.Err(); err != nil {
		return err
	}
	if err := st.Arrivals.Check("--bucket"); err != nil {
		return err
	}
	if asJSON {
		perModel := map[string]int{}
		for i, n := range st.PerModel {
			if n > 0 {
				perModel[catalogue[i]] = n
			}
		}
		tiers := map[string]int{}
		for t, n := range st.PerTier {
			tiers[fmt.Sprint(t)] = n
		}
		return printJSON(out, map[string]any{"path": path, "format": jobFormat, "jobs": st.Jobs, "graded": st.Graded,
			"first_arrival_s": st.First.Seconds(), "last_arrival_s": st.Last.Seconds(), "skipped": r.SkippedCount(),
			"per_model": perModel, "per_project": st.PerProject, "per_tier": tiers, "per_class": st.PerClass,
			"arrivals": bucketsOf(st.Arrivals), "calls_per_job": sampleOf(st.CallsPerJob),
			"input_tokens_per_call": sampleOf(st.InputTokens), "output_tokens_per_call": sampleOf(st.OutputTokens)})
	}
	fmt.Fprintf(out, "%s: %d jobs, arrivals %.1f-%.1f s, %d with a grading job", path, st.Jobs, st.First.Seconds(), st.Last.Seconds(), st.Graded)
	if n := r.SkippedCount(); n > 0 {
		fmt.Fprintf(out, "; %d bad records skipped (sim trace validate lists them)", n)
	}
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	writeJobCounts(tw, st, catalogue, top)
	fmt.Fprintf(tw, "\narrivals per %v\n", bucket)
	writeBuckets(tw, st.Arrivals, "jobs")
	fmt.Fprintf(tw, "\ncalls per job and tokens per call (class jobs: drawn from the class with the job's seed, as the simulator does)\n")
	fmt.Fprintf(tw, "\tmean\tp50\tp90\tmax\t\n")
	writeSample(tw, st.CallsPerJob, "calls per job")
	writeSample(tw, st.InputTokens, "input tokens per call")
	writeSample(tw, st.OutputTokens, "output tokens per call")
	if st.CallsPerJob.Sampled() || st.InputTokens.Sampled() {
		fmt.Fprintf(tw, "(percentiles from a uniform sample of %d values of each)\n", workloads.SampleReservoir)
	}
	return tw.Flush()
}

// writeJobCounts writes the jobs per model, project, tier and class.
func writeJobCounts(tw io.Writer, st *workloads.TraceStats, catalogue []string, top int) {
	fmt.Fprintf(tw, "\njobs per model\nmodel\tjobs\tshare\t\n")
	var models []string
	perModel := map[string]int{}
	for i, n := range st.PerModel {
		if n > 0 {
			models = append(models, catalogue[i])
			perModel[catalogue[i]] = n
		}
	}
	// Busiest first; a stable sort keeps catalogue order among equals.
	slices.SortStableFunc(models, func(a, b string) int { return perModel[b] - perModel[a] })
	writeCounts(tw, models, perModel, st.Jobs, top)
	fmt.Fprintf(tw, "(all)\t%d\t\t\n", st.Jobs)

	fmt.Fprintf(tw, "\njobs per project\nproject\tjobs\tshare\t\n")
	projects := sortedKeys(st.PerProject)
	slices.SortStableFunc(projects, func(a, b string) int { return st.PerProject[b] - st.PerProject[a] })
	writeCounts(tw, projects, st.PerProject, st.Jobs, top)

	fmt.Fprintf(tw, "\njobs per tier (effective: the batch's, else the project's, else the account's)\ntier\tjobs\tshare\t\n")
	tiers := map[string]int{}
	var tierNames []string
	for _, t := range slices.Sorted(maps.Keys(st.PerTier)) {
		label := fmt.Sprint(t)
		if t == 0 {
			label = "none"
		}
		tiers[label] = st.PerTier[t]
		tierNames = append(tierNames, label)
	}
	writeCounts(tw, tierNames, tiers, st.Jobs, 0)

	fmt.Fprintf(tw, "\njobs per behaviour\nclass\tjobs\tshare\t\n")
	writeCounts(tw, sortedKeys(st.PerClass), st.PerClass, st.Jobs, 0)
}

// writeCounts writes one row per key in the given order, the first top of
// them (0 = all) and then how many more there are.
func writeCounts(tw io.Writer, keys []string, n map[string]int, total, top int) {
	for i, k := range keys {
		if top > 0 && i == top {
			fmt.Fprintf(tw, "(%d more)\t\t\t\n", len(keys)-top)
			return
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t\n", k, n[k], share(n[k], total))
	}
}

// requestStats describes a public request trace.
func requestStats(out io.Writer, path string, format workloads.RequestFormat, bucket time.Duration, asJSON bool) error {
	st, err := workloads.ReadRequestStats(path, format, bucket)
	if err != nil {
		return err
	}
	if err := st.Arrivals.Check("--bucket"); err != nil {
		return err
	}
	if asJSON {
		return printJSON(out, map[string]any{"path": path, "format": format, "requests": st.Requests, "last_arrival_s": st.Last.Seconds(),
			"arrivals": bucketsOf(st.Arrivals), "input_tokens": sampleOf(st.InputTokens), "output_tokens": sampleOf(st.OutputTokens)})
	}
	fmt.Fprintf(out, "%s (%s): %d requests over %.1f s, %.2f requests/s\n", path, format, st.Requests, st.Last.Seconds(), float64(st.Requests)/math.Max(st.Last.Seconds(), 1e-9))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\nrequests per %v\n", bucket)
	writeBuckets(tw, st.Arrivals, "requests")
	fmt.Fprintf(tw, "\ntokens per request\n\tmean\tp50\tp90\tmax\t\n")
	writeSample(tw, st.InputTokens, "input")
	writeSample(tw, st.OutputTokens, "output")
	fmt.Fprintf(tw, "total input\t%.0f\t\t\t\t\ntotal output\t%.0f\t\t\t\t\n", st.InputTokens.Sum, st.OutputTokens.Sum)
	return tw.Flush()
}

func share(n, total int) float64 {
	if total == 0 {
		return 0
	}
	return 100 * float64(n) / float64(total)
}

func sortedKeys(m map[string]int) []string { return slices.Sorted(maps.Keys(m)) }

func writeBuckets(w io.Writer, b workloads.Buckets, what string) {
	fmt.Fprintf(w, "from\tto\t%s\tper hour\t\n", what)
	for i, n := range b.N {
		from, to := time.Duration(i)*b.Width, time.Duration(i+1)*b.Width
		fmt.Fprintf(w, "%v\t%v\t%d\t%.0f\t\n", from, to, n, float64(n)/b.Width.Hours())
	}
}

func writeSample(w io.Writer, s *workloads.Sample, label string) {
	if s.N == 0 {
		fmt.Fprintf(w, "%s\tn/a\tn/a\tn/a\tn/a\t\n", label)
		return
	}
	fmt.Fprintf(w, "%s\t%.1f\t%.0f\t%.0f\t%.0f\t\n", label, s.Mean(), s.Quantile(0.5), s.Quantile(0.9), s.Max)
}

// jobTrace is a job trace opened to be read against a scenario's catalogue
// and behaviour classes.
type jobTrace struct {
	sc      *scenario.Scenario
	in      io.Reader
	classes map[string]*workloads.Behaviour
	io.Closer
}

// openTraceFor loads the scenario and opens the job trace at path against
// it.
func openTraceFor(scenarioRef, path string) (*jobTrace, error) {
	sc, err := scenario.LoadScenario(scenarioRef)
	if err != nil {
		return nil, err
	}
	classes, err := workloads.BehaviourClasses(sc.Workload)
	if err != nil {
		return nil, err
	}
	in, f, err := workloads.OpenTrace(path)
	if err != nil {
		return nil, err
	}
	return &jobTrace{sc: sc, in: in, classes: classes, Closer: f}, nil
}
