package report

import (
	"fmt"
	"io"

	"github.com/evalsched/lab/results"
)

// quotaTable is the quota telemetry of every run: N used of daily quota M
// per workload, organisation or key, and dimension, with N/M, marking the
// evaluation lines above maxShare (none when maxShare <= 0).
func quotaTable(s results.Summary, maxShare float64) (table, int) {
	t := table{Title: "Quota telemetry",
		Note: "This run used N of the daily quota M, per workload, organisation (or gateway key) and daily dimension (whole run), in the quota's units (tokens as its rules count them); real tokens: the same calls' input + output.",
		Head: []string{"run", "workload", "org/key", "dimension", "used N", "real tokens", "quota M", "N/M", "gate"}}
	over := 0
	for i, r := range s.Runs {
		for _, q := range r.QuotaUse {
			where := q.Org
			if q.Key != "" {
				where = "key " + q.Key
			}
			gate := ""
			if q.Workload == results.EvaluationWorkload && maxShare > 0 {
				gate = "ok"
				if q.Share > maxShare {
					gate = "OVER"
					over++
				}
			}
			real := ""
			if q.RealTokens > 0 {
				real = count(int64(q.RealTokens))
			}
			t.Rows = append(t.Rows, []string{roleName(s, i), q.Workload, where, q.Dimension, count(int64(q.Used)), real, count(int64(q.Quota)),
				share(q.Share), gate})
		}
	}
	return t, over
}

// share prints a share as a percentage with two decimals (0.05 → 5.00%).
func share(x float64) string { return fmt.Sprintf("%.2f%%", 100*x) }

// WriteQuotaTable prints the quota telemetry of a summary, marking the
// evaluation lines whose share of a daily quota passes maxShare (the
// verdict itself is lab.CheckQuotaVerdict's).
func WriteQuotaTable(w io.Writer, s results.Summary, maxShare float64) error {
	t, _ := quotaTable(s, maxShare)
	if len(t.Rows) == 0 {
		_, err := fmt.Fprintln(w, "no daily quota used in this run (no organisation or key sets rpd or tpd)")
		return err
	}
	return writeTable(w, fmt.Sprintf("quota telemetry (gate: evaluation N/M above %s):", share(maxShare)), t)
}
