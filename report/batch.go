package report

import (
	"fmt"
	"io"

	"github.com/evalsched/lab/results"
)

// The batch lane: per run and batch pool, what the jobs sent there did
// (throughput and latency over the measurement window, the whole run's
// conservation), their cost against the synchronous price, and
// production's share of the organisation's synchronous quotas. Written
// only for runs with a batch lane.

func batchHead() []string {
	return []string{"run", "pool", "submitted", "completed", "expired", "held+enqueued at end", "done/h", "latency p50 s", "p90 s", "p99 s",
		"peak enqueued", "$", "sync $", "$/job", "production token share"}
}

func batchRow(run string, b results.BatchLane) []string {
	pool := b.Org
	if b.Model != "" {
		pool += "/" + b.Model
	}
	return []string{run, pool, count(b.Submitted), count(b.Completed), count(b.Expired), count(b.HeldAtEnd + b.EnqueuedAtEnd),
		fmt.Sprintf("%.1f", b.CompletedPerHour), fmt.Sprintf("%.0f", b.Latency.P50), fmt.Sprintf("%.0f", b.Latency.P90), fmt.Sprintf("%.0f", b.Latency.P99),
		fmt.Sprintf("%d req / %d tok", b.PeakRequests, b.PeakTokens), fmt.Sprintf("%.2f", b.Dollars), fmt.Sprintf("%.2f", b.SyncDollars),
		fmt.Sprintf("%.4f", b.DollarsPerJob), fmt.Sprintf("%.1f%%", 100*fin(b.ProductionTokenShare))}
}

// WriteBatchTable prints every run's batch pools; nothing when no run has one.
func WriteBatchTable(w io.Writer, runs []results.Run) error {
	has := false
	for _, r := range runs {
		has = has || len(r.BatchLanes) > 0
	}
	if !has {
		return nil
	}
	writeTitle(w, "batch lane (counts: whole run; done/h, latency from arrival and $: completed in the measurement window; production's share of the organisation's synchronous quota tokens):")
	tw := newFitWriter(w)
	for _, h := range batchHead() {
		fmt.Fprintf(tw, "%s\t", h)
	}
	fmt.Fprintln(tw)
	for _, r := range runs {
		for _, b := range r.BatchLanes {
			for _, c := range batchRow(r.Policy, b) {
				fmt.Fprintf(tw, "%s\t", c)
			}
			fmt.Fprintln(tw)
		}
	}
	return tw.Flush()
}

// batchTable is the report's batch-lane table (no rows without one).
func batchTable(s results.Summary) table {
	t := table{Title: "Batch lane",
		Note: "Jobs of a batch class sent to their organisation's batch API instead of the gateway (runs[].batch_lanes). Counts over the whole run; " +
			"completed per hour, latency (arrival to completion) and dollars over the measurement window, at the batch price and at the synchronous price; " +
			"production's share of the tokens the organisation's synchronous quotas counted.",
		Head: batchHead()}
	for _, r := range s.Runs {
		for _, b := range r.BatchLanes {
			t.Rows = append(t.Rows, batchRow(r.Policy, b))
		}
	}
	return t
}
