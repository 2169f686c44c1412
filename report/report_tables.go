package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/evalsched/lab/results"
)

func f0(v float64) string  { return fmt.Sprintf("%.0f", fin(v)) }
func f1(v float64) string  { return fmt.Sprintf("%.1f", fin(v)) }
func f2(v float64) string  { return fmt.Sprintf("%.2f", fin(v)) }
func pct(v float64) string { return fmt.Sprintf("%.0f%%", 100*fin(v)) }

func count(n int64) string { return results.Count(n) }

// makespan formats a makespan statistic of n finished batches: "-" when
// none finished (the statistic is then 0, not a time).
func makespan(v float64, n int) string {
	if n <= 0 {
		return "-"
	}
	return f0(v)
}

func runsTable(s results.Summary) table {
	t := table{Title: "Runs", Note: "All lanes, measurement window; the job counts on the right are the whole run.",
		Head: []string{"policy", "jobs/h", "container cost", "container-h", "gateway-only ctr-h", "429s", "failed calls", "outage errors",
			"p50 job s", "p90 job s", "p99 job s", "wait share", "p90 wait share", "completed in window", "jobs arrived", "jobs completed",
			"events", "window s"}}
	for i, r := range s.Runs {
		l := r.Total
		t.Rows = append(t.Rows, []string{roleName(s, i), f1(l.ThroughputPerHour), f2(l.ContainerCost), f1(l.ContainerSeconds / 3600),
			f1(l.GatewayWaitContainerSeconds / 3600), count(l.Rejected429), count(l.FailedCalls), count(l.Errors),
			f0(l.JobTime.Total.P50), f0(l.JobTime.Total.P90), f0(l.JobTime.Total.P99), pct(l.WaitShare), pct(l.P90WaitShare),
			count(l.Completed), count(r.JobsArrived), count(r.JobsCompleted), count(int64(r.Events)), f0(r.Window[0]) + "–" + f0(r.Window[1])})
	}
	if len(t.Rows) == 0 {
		t.Note = "summary.json has no run."
	}
	return t
}

func comparisonTable(s results.Summary, old, new results.Run) table {
	rows := comparisonRows(s)
	t := table{Title: "Per-lane comparison",
		Note: fmt.Sprintf("old = %s, new = %s, on the identical job stream; every lane with any job, busiest (new) first; "+
			"multiplier = new ÷ old throughput (\"n/a (old N)\" where the baseline completed N jobs, fewer than %d: too few for a ratio, "+
			"and the token multiplier n/a too; summary.json keeps every ratio); token multiplier = new ÷ old tokens "+
			"answered per hour (the work a token quota admitted, whichever jobs it went to).", old.Policy, new.Policy, results.MinRatioCompleted),
		Head: []string{"model", "multiplier", "token multiplier", "old jobs/h", "new jobs/h", "old p90 s", "new p90 s", "old p90 wait share",
			"new p90 wait share", "old gateway-only ctr-h", "new gateway-only ctr-h"}}
	line := func(c results.LaneComparison) []string {
		// summary.json's comparison rows carry no job counts: the old run's lane does
		if c.Model != results.AllLanes {
			c.OldCompleted = laneOf(old, c.Model).Completed
		}
		mult, tokens := results.RatioCells(c, "×")
		return []string{c.Model, mult, tokens, f1(c.OldPerHour),
			f1(c.NewPerHour), f0(c.OldP90), f0(c.NewP90), pct(c.OldWaitShare), pct(c.NewWaitShare), f2(c.OldGatewayCtrH),
			f2(c.NewGatewayCtrH)}
	}
	for _, c := range rows {
		t.Rows = append(t.Rows, line(c))
	}
	if total := totalComparison(old, new); total != nil {
		t.Total = line(*total)
		t.Total[0] = results.AllLanes
	}
	return t
}

// totalComparison compares the runs' totals (nil if there is none).
func totalComparison(old, new results.Run) *results.LaneComparison {
	total := results.Compare(results.Run{Lanes: []results.Lane{old.Total}}, results.Run{Lanes: []results.Lane{new.Total}})
	if len(total) == 0 {
		return nil
	}
	return &total[0]
}

func laneTable(run results.Run) table {
	t := table{Title: "Lanes: " + run.Policy, Note: "Every lane with any job, busiest first; measurement window.",
		Head: []string{"model", "completed", "jobs/h", "M tokens/h", "p50 s", "p90 s", "wait share", "p90 wait share", "mean running",
			"gateway-only ctr-h", "429s"}}
	lanes := append([]results.Lane(nil), run.Lanes...)
	sort.SliceStable(lanes, func(i, j int) bool { return lanes[i].ThroughputPerHour > lanes[j].ThroughputPerHour })
	line := func(l results.Lane) []string {
		return []string{l.Model, count(l.Completed), f1(l.ThroughputPerHour), f2(l.TokensPerHour / 1e6), f0(l.JobTime.Total.P50),
			f0(l.JobTime.Total.P90), pct(l.WaitShare), pct(l.P90WaitShare), f1(l.MeanRunning), f2(l.GatewayWaitContainerSeconds / 3600), count(l.Rejected429)}
	}
	for _, l := range lanes {
		t.Rows = append(t.Rows, line(l))
	}
	t.Total = line(run.Total)
	t.Total[0] = results.AllLanes
	return t
}

// seedsTable is multiplier_across_seeds; ok is false without it.
func seedsTable(s results.Summary) (table, bool) {
	if len(s.MultiplierAcrossSeeds) == 0 {
		return table{}, false
	}
	t := table{Title: "Multiplier across seeds",
		Note: fmt.Sprintf("Each lane's multiplier (new ÷ old throughput) over seeds %s: mean and 95%% confidence interval "+
			"(geometric mean of the per-seed ratios, Student's t on their logarithms), and the same for the token multiplier "+
			"(new ÷ old tokens answered per hour). Seeds whose baseline completed fewer than %d jobs on a lane "+
			"are left out of it (near zero); the other tables are seed %d.",
			seedList(s.Seeds), results.NearZeroCompleted, s.Seed),
		Head: []string{"model", "mean", "95% CI low", "95% CI high", "token multiplier mean", "token 95% CI low", "token 95% CI high", "seeds"}}
	for _, m := range s.MultiplierAcrossSeeds {
		mean, lo, hi := m.Cells("×")
		tmean, tlo, thi := m.Tokens.Cells("×")
		t.Rows = append(t.Rows, []string{m.Model, mean, lo, hi, tmean, tlo, thi, fmt.Sprint(m.Seeds)})
	}
	return t, true
}

func seedList(seeds []uint64) string {
	if len(seeds) == 0 {
		return "-"
	}
	return fmt.Sprintf("%d–%d (%d seeds)", seeds[0], seeds[len(seeds)-1], len(seeds))
}

// productionTable is runs[].production: each production stream under each
// policy, whole run.
func productionTable(s results.Summary) table {
	t := table{Title: "Production traffic",
		Note: "Production streams share the providers' streams and quotas with the evaluation jobs (whole run). " +
			"Outage minutes: minutes whose success rate (answered ÷ answered + failed) is below the stream's threshold (default 50%); " +
			"failed minutes: minutes in which a production call gave up.",
		Head: []string{"policy", "stream", "model", "outage min", "failed min", "failed", "429s", "answered", "arrived", "outage rejections", "mean latency s"}}
	for i, r := range s.Runs {
		for _, p := range r.Production {
			t.Rows = append(t.Rows, []string{roleName(s, i), p.Name, p.Model, count(p.OutageMinutes), count(p.FailedMinutes), count(p.Failed), count(p.Rejected429),
				count(p.Answered), count(p.Arrived), count(p.RejectedOutage), f2(p.LatencyMean)})
		}
	}
	if len(t.Rows) == 0 {
		t.Note = "No production traffic in this scenario: evaluation jobs had the providers to themselves."
	}
	return t
}

func fairnessTable(s results.Summary) table {
	t := table{Title: "Fairness",
		Note: "Jain per lane: Jain's index over the projects of one tier backlogged on one lane (jobs of that tier waiting for that model at every " +
			"sample of a window; projects of a tier take turns), by jobs admitted and by tokens answered, over the lanes, tiers and windows with " +
			"at least two such projects, weighted by their admissions " +
			"(the per-lane rows are in summary.json); cross-lane: the same index over every backlogged project whatever lane it waited on, which " +
			"compares projects that do not compete. Small batches: at most 50 jobs, arrived in the window; behind large: a large batch of the same " +
			"model had jobs waiting when it arrived. Makespans and job waits are Kaplan–Meier percentiles over the finished and the censored " +
			"(unfinished, or still waiting, at the end; \"> x\": the estimate does not reach the percentile, x the longest observed). Fair share: " +
			"from a project starting to wait on a lane where others wait to its admissions reaching 80% of its equal share (or all it asked for). " +
			"Tier rule: the share of the slots left to a tier (a lower tier also waiting, no higher tier took it) that it took, against its weight " +
			"(tier_share, 0.8 by default); the lowest tier's admissions per lane-hour while a higher tier waited.",
		// Each head names its figure whole: the terminal prints the table in
		// blocks of columns, where a bare "p90 s" would lose its subject.
		Head: []string{"policy", "Jain per lane", "Jain by tokens", "lane windows", "Jain cross-lane", "behind large finished/censored",
			"behind-large makespan p50 s", "behind-large makespan p90 s", "small batches finished/censored", "small makespan p50 s", "small makespan p90 s",
			"job wait p50 s", "job wait p90 s", "fair share reached/censored", "fair share p50 s", "fair share p90 s", "tier rule", "lowest tier jobs/h behind higher"}}
	for i, r := range s.Runs {
		f := r.Fairness
		b, sm, w, fs := f.BehindLargeKM, f.SmallMakespanKM, f.JobWait, f.TimeToFairShare
		t.Rows = append(t.Rows, []string{roleName(s, i), results.JainText(f.JainPerLane), results.JainText(f.JainPerLaneTokens), fmt.Sprint(f.LaneWindows), results.JainText(f.JainCrossLane),
			fmt.Sprintf("%d/%d", b.Ended, b.Censored), b.Quantile(b.P50), b.Quantile(b.P90),
			fmt.Sprintf("%d/%d", sm.Ended, sm.Censored), sm.Quantile(sm.P50), sm.Quantile(sm.P90),
			w.Quantile(w.P50), w.Quantile(w.P90),
			fmt.Sprintf("%d/%d", fs.Ended, fs.Censored), fs.Quantile(fs.P50), fs.Quantile(fs.P90),
			FormatTierRule(f.TierRule), lowestTierRate(f.TierRule)})
	}
	return t
}

// FormatTierRule prints each tier's share of the slots left to it, as
// "tier 1 80% of 1,234, tier 2 …" (tiers never offered a slot are left out).
func FormatTierRule(rs []results.TierRuleSummary) string {
	var parts []string
	for _, r := range rs {
		if r.Offered > 0 {
			parts = append(parts, fmt.Sprintf("tier %s %s of %s", r.Tier, pct(r.Share), count(r.Offered)))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// lowestTierRate is the lowest tier's admissions per lane-hour while a
// higher tier waited on the lane, "-" when it never waited behind one.
func lowestTierRate(rs []results.TierRuleSummary) string {
	for i := len(rs) - 1; i >= 0; i-- {
		if r := rs[i]; r.HigherBackloggedHours > 0 {
			return fmt.Sprintf("tier %s %s/h", r.Tier, f1(r.AdmittedPerHour))
		}
	}
	return "-"
}

func convergenceTables(s results.Summary) []table {
	var out []table
	var still []string // the runs whose limits never moved
	stillAt := 0
	for i, r := range s.Runs {
		t := table{Title: "Convergence: " + roleName(s, i),
			Note: "Per model whose running-job limit moved, after each disturbance up to the next: the settled limit (median of the " +
				"segment's last quarter), the time until the limit stays within ±max(10%, 2) of it (-1: never), the overshoot past it " +
				"(fraction of settled) and half the peak-to-peak range once in band; then the time to capacity (streams ≥ 95% busy or no job " +
				"waiting), the settling time (the limit within ±max(10%, 1) for 30 samples), reversals of the limit per hour and " +
				"the mean |depth − target| (-1: never, or no target). Only disturbances on the model itself or on every model.",
			Head: []string{"model", "disturbance", "at", "settled limit", "time to band s", "overshoot", "oscillation",
				"to capacity s", "settling s", "reversals/h", "mean |depth − target|"}}
		for _, c := range r.Convergence {
			t.Rows = append(t.Rows, []string{c.Model, c.Disturbance.Label(), formatClock(c.Disturbance.Seconds()), f0(c.Settled), f0(c.TimeToBand),
				pct(c.Overshoot), f1(c.Oscillation), f0(c.TimeToCapacity), f0(c.SettlingTime), f1(c.ReversalsPerHour), f1(c.DepthErrMean)})
		}
		if len(t.Rows) == 0 {
			still = append(still, roleName(s, i))
			if len(still) > 1 {
				continue // one section says it for all of them, below
			}
			stillAt = len(out)
		}
		out = append(out, t)
	}
	// The runs whose limits never moved share one section: fourteen
	// identical "no limit moved" sections told a reader nothing fourteen times.
	switch len(still) {
	case 0:
	case 1:
		out[stillAt].Note = "No model's limit moved in this run (a fixed-lane run keeps fixed caps)."
	default:
		out[stillAt] = table{Title: fmt.Sprintf("Convergence: %d runs without a moved limit", len(still)),
			Note: fmt.Sprintf("No model's limit moved in any of these runs (a fixed-lane run keeps fixed caps): %s.", strings.Join(still, ", "))}
	}
	return out
}
