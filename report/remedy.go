package report

import (
	"fmt"
	"io"

	"github.com/evalsched/lab/results"
)

// remedyTable is the incident table: per run (each variant), production's
// outage minutes and 429s, when the evaluation finished and how much of it,
// its tokens, the RPM burned by its rejected tries, the alerts fired and
// the starts the breaker deferred. It has no rows unless the runs have
// production traffic and quota figures.
func remedyTable(s results.Summary) table {
	t := table{Title: "Incident and remedies",
		Note: "Production outage minutes: minutes whose success rate (answered ÷ answered + failed) is below the stream's threshold. " +
			"Eval finish: time of day of the last evaluation job completed; done: evaluation jobs completed ÷ arrived. " +
			"RPM burned: rejected evaluation tries counted against RPM/RPD (count_rejected). Deferred: decisions the circuit breaker held back. " +
			"Outage from–to: the first and the last outage minute (times of day); first alert: when the first quota alert episode began. " +
			"In a run of more than a day every time carries its day of the week (the clock's week starts Monday 00:00).",
		Head: []string{"variant", "prod outage min", "outage from–to", "prod 429s", "prod failed", "eval finish", "eval done", "eval tokens", "RPM burned", "alerts", "first alert", "deferred"}}
	for i, r := range s.Runs {
		q := r.Quota
		if q == nil || len(r.Production) == 0 {
			continue
		}
		var outage, r429, failed int64
		for _, p := range r.Production {
			outage += p.OutageMinutes
			r429 += p.Rejected429
			failed += p.Failed
		}
		days := r.Window[1] > 24*3600 // a run of more than a day names the day too
		finish := "-"
		if q.EvalLastFinish > 0 {
			finish = clockTime(q.Clock+q.EvalLastFinish, days)
		}
		deferred := "-"
		if r.Guards != nil {
			deferred = count(r.Guards.DeferredTicks)
		}
		firstAlert := "-"
		if len(r.Alerts) > 0 {
			first := r.Alerts[0].Start
			for _, a := range r.Alerts {
				first = min(first, a.Start)
			}
			firstAlert = clockTime(q.Clock+first, days)
		}
		t.Rows = append(t.Rows, []string{roleName(s, i), count(outage), outageSpan(r.Production, q.Clock, days), count(r429), count(failed), finish,
			fmt.Sprintf("%d/%d", r.JobsCompleted, r.JobsArrived), fmt.Sprintf("%.1fM", q.EvalTokens/1e6),
			count(q.BurnedEval), fmt.Sprint(len(r.Alerts)), firstAlert, deferred})
	}
	return t
}

// outageSpan is the first and the last outage minute of any production
// stream as times of day ("-" when none): the incident's timeline.
func outageSpan(prod []results.ProductionStats, clock float64, days bool) string {
	first, last, ok := results.OutageSpan(prod)
	if !ok {
		return "-"
	}
	return clockTime(clock+60*float64(first), days) + "–" + clockTime(clock+60*float64(last+1), days)
}

func clockTime(s float64, days bool) string { return results.ClockTime(s, days) }

// WriteRemedyTable prints the incident and remedy table; nothing when no
// run has production traffic and quota figures.
func WriteRemedyTable(w io.Writer, s results.Summary) error {
	return writeTable(w, "incident and remedies (whole run):", remedyTable(s))
}
