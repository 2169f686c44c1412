package results

import (
	"fmt"
	"io"
)

// remedyTable is the incident table: per run (each variant), production's
// outage minutes and 429s, when the evaluation finished and how much of it,
// its tokens, the RPM burned by its rejected tries, the alerts fired and
// the starts the breaker deferred. It has no rows unless the runs have
// production traffic and quota figures.
func remedyTable(s Summary) table {
	t := table{Title: "Incident and remedies",
		Note: "Production outage minutes: minutes whose success rate (answered ÷ answered + failed) is below the stream's threshold. " +
			"Eval finish: time of day of the last evaluation job completed; done: evaluation jobs completed ÷ arrived. " +
			"RPM burned: rejected evaluation tries counted against RPM/RPD (count_rejected). Deferred: decisions the circuit breaker held back.",
		Head: []string{"variant", "prod outage min", "prod 429s", "prod failed", "eval finish", "eval done", "eval tokens", "RPM burned", "alerts", "deferred"}}
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
		finish := "-"
		if q.EvalLastFinish > 0 {
			finish = clockTime(q.Clock + q.EvalLastFinish)
		}
		deferred := "-"
		if r.Guards != nil {
			deferred = count(r.Guards.DeferredTicks)
		}
		t.Rows = append(t.Rows, []string{roleName(s, i), count(outage), count(r429), count(failed), finish,
			fmt.Sprintf("%d/%d", r.JobsCompleted, r.JobsArrived), fmt.Sprintf("%.1fM", q.EvalTokens/1e6),
			count(q.BurnedEval), fmt.Sprint(len(r.Alerts)), deferred})
	}
	return t
}

// clockTime reads seconds since Monday 00:00 as a time of day.
func clockTime(s float64) string {
	m := int(s/60) % (24 * 60)
	return fmt.Sprintf("%02d:%02d", m/60, m%60)
}

// WriteRemedyTable prints the incident and remedy table; nothing when no
// run has production traffic and quota figures.
func WriteRemedyTable(w io.Writer, s Summary) error {
	return writeTable(w, "incident and remedies (whole run):", remedyTable(s))
}
