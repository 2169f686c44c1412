package report

import (
	"fmt"
	"io"

	"github.com/evalsched/lab/results"
)

// The bill: dollars per completed job by lane and run, split by tokens and
// containers, new ÷ old cost per job beside the throughput multiplier, and
// what the prompt cache did. Written only for runs with a bill (a scenario
// with prices or a prompt cache).

func billOf(l results.Lane) results.Bill {
	if l.Bill == nil {
		return results.Bill{}
	}
	return *l.Bill
}

func misses(b results.Bill) string {
	return count(b.CacheMissGateway) + " / " + count(b.CacheMissTool)
}

// WriteBillTable prints, for compare, each lane's cost per job old and new
// with their ratio beside the multiplier, and the runs' bills; nothing
// when the runs carry none.
func WriteBillTable(w io.Writer, runs []results.Run, rows []results.LaneComparison, top int) error {
	if len(runs) < 2 || runs[0].Total.Bill == nil {
		return nil
	}
	old, new := runs[0], runs[1]
	oldBy, newBy := map[string]results.Lane{}, map[string]results.Lane{}
	for _, l := range old.Lanes {
		oldBy[l.Model] = l
	}
	for _, l := range new.Lanes {
		newBy[l.Model] = l
	}
	writeTitle(w, "cost per completed job (tokens + containers, measurement window; cache misses by gateway wait / tool time):")
	tw := newFitWriter(w)
	fmt.Fprintf(tw, "model\tmultiplier\tcost/job x\told $/job\tnew $/job\told cache-read share\tnew cache-read share\told cache misses gateway/tool\tnew cache misses gateway/tool\t\n")
	line := func(c results.LaneComparison, o, n results.Bill) {
		mult, _ := results.RatioCells(c, "x")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.4f\t%.4f\t%s\t%s\t%s\t%s\t\n", c.Model, mult,
			results.MultiplierText(c.CostPerJobRatio, "x"), o.DollarsPerJob, n.DollarsPerJob, pct(o.CacheReadShare), pct(n.CacheReadShare), misses(o), misses(n))
	}
	shown := rows
	if top > 0 && len(rows) > top {
		shown = rows[:top]
	}
	for _, c := range shown {
		line(c, billOf(oldBy[c.Model]), billOf(newBy[c.Model]))
	}
	if rest := len(rows) - len(shown); rest > 0 {
		fmt.Fprintf(tw, "(%s)\t\n", plural(rest, "more lane", "more lanes"))
	}
	if total := totalComparison(old, new); total != nil {
		total.Model = results.AllLanes
		line(*total, billOf(old.Total), billOf(new.Total))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeRunBills(w, runs)
}

// WriteRunBillTable prints one run's bill by lane; nothing without one.
func WriteRunBillTable(w io.Writer, run results.Run, top int) error {
	if run.Total.Bill == nil {
		return nil
	}
	writeTitle(w, "cost (measurement window; cache misses by gateway wait / tool time):")
	tw := newFitWriter(w)
	fmt.Fprintf(tw, "model\t$/job\ttoken $/job\tcontainer $/job\t$\tcache-read share\tcache misses\t\n")
	row := func(l results.Lane) {
		b := billOf(l)
		fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t%.4f\t%.2f\t%s\t%s\t\n", l.Model, b.DollarsPerJob, b.TokenDollarsPerJob, b.ContainerDollarsPerJob, b.Dollars, pct(b.CacheReadShare), misses(b))
	}
	for i, l := range run.Lanes {
		if top > 0 && i == top {
			fmt.Fprintf(tw, "(%s)\t\n", plural(len(run.Lanes)-top, "more lane", "more lanes"))
			break
		}
		row(l)
	}
	row(run.Total)
	return tw.Flush()
}

func writeRunBills(w io.Writer, runs []results.Run) error {
	tw := newFitWriter(w)
	fmt.Fprintf(tw, "run\t$\ttoken $\tcontainer $\t$/job\ttoken $/job\tcontainer $/job\tcache-read share\tcache misses\t\n")
	for _, r := range runs {
		b := billOf(r.Total)
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.2f\t%.4f\t%.4f\t%.4f\t%s\t%s\t\n", r.Policy, b.Dollars, b.TokenDollars, b.ContainerDollars,
			b.DollarsPerJob, b.TokenDollarsPerJob, b.ContainerDollarsPerJob, pct(b.CacheReadShare), misses(b))
	}
	return tw.Flush()
}

// billTable is the report's bill: per lane and in all, the multiplier and
// new ÷ old cost per job, each run's dollars per job by tokens and
// containers, and the cache.
func billTable(s results.Summary, old, new results.Run) table {
	t := table{Title: "Cost per completed job",
		Note: fmt.Sprintf("old = %s, new = %s; dollars over the measurement window: tokens of the calls answered in it at the models' prices "+
			"(uncached input, cache writes, cache reads, output) plus container-hours, per job completed in it; cost/job ratio = new ÷ old, "+
			"beside the throughput multiplier. Cache misses: calls whose job's cache entry expired, by the call's wait at the gateway / "+
			"by the tool step and service before it.", old.Policy, new.Policy),
		Head: []string{"model", "multiplier", "cost/job ratio", "old $/job", "new $/job", "old token $/job", "new token $/job",
			"old container $/job", "new container $/job", "old cache-read share", "new cache-read share", "old cache misses", "new cache misses"}}
	oldBy, newBy := map[string]results.Lane{}, map[string]results.Lane{}
	for _, l := range old.Lanes {
		oldBy[l.Model] = l
	}
	for _, l := range new.Lanes {
		newBy[l.Model] = l
	}
	line := func(c results.LaneComparison, o, n results.Bill) []string {
		return []string{c.Model, results.MultiplierText(c.Multiplier, "×"), results.MultiplierText(c.CostPerJobRatio, "×"),
			fmt.Sprintf("%.4f", o.DollarsPerJob), fmt.Sprintf("%.4f", n.DollarsPerJob), fmt.Sprintf("%.4f", o.TokenDollarsPerJob),
			fmt.Sprintf("%.4f", n.TokenDollarsPerJob), fmt.Sprintf("%.4f", o.ContainerDollarsPerJob), fmt.Sprintf("%.4f", n.ContainerDollarsPerJob),
			pct(o.CacheReadShare), pct(n.CacheReadShare), misses(o), misses(n)}
	}
	for _, c := range comparisonRows(s) {
		t.Rows = append(t.Rows, line(c, billOf(oldBy[c.Model]), billOf(newBy[c.Model])))
	}
	if total := totalComparison(old, new); total != nil {
		t.Total = line(*total, billOf(old.Total), billOf(new.Total))
		t.Total[0] = results.AllLanes
	}
	return t
}
