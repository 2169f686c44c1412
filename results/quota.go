package results

import (
	"fmt"
	"io"
)

// EvaluationWorkload names the evaluation jobs in quota telemetry; every
// other workload is a production stream, by its name.
const EvaluationWorkload = "evaluation"

// QuotaUse is one line of a run's quota telemetry: a workload's use of one
// daily quota of an organisation (Org) or a gateway virtual key (Key) over
// the whole run — "this run used N of the daily quota M".
type QuotaUse struct {
	Workload  string  `json:"workload"`
	Org       string  `json:"org,omitempty"`
	Key       string  `json:"key,omitempty"`
	Dimension string  `json:"dimension"` // rpd or tpd
	Used      float64 `json:"used"`
	Quota     float64 `json:"quota"`
	Share     float64 `json:"share"` // Used ÷ Quota
}

// ProductionMinute is one minute of a production stream: calls answered
// (served), tries rejected by a quota, calls given up, the latency
// percentiles of the answered calls (arrival to answer), and whether the
// minute counts as an outage minute.
type ProductionMinute struct {
	Minute      int     `json:"minute"`
	Served      int64   `json:"served"`
	Rejected429 int64   `json:"rejected_429"`
	Failed      int64   `json:"failed"`
	LatencyP50  float64 `json:"latency_p50_s"`
	LatencyP99  float64 `json:"latency_p99_s"`
	Outage      bool    `json:"outage,omitempty"`
}

// AlertEpisode is one episode of the quota alert: non-production traffic
// above the alert's share of a shared quota, from Start to End (seconds of
// virtual time; End is the run's end if it never cleared).
type AlertEpisode struct {
	Start     float64 `json:"start_s"`
	End       float64 `json:"end_s"`
	Key       string  `json:"key"`
	Dimension string  `json:"dimension"`
	PeakShare float64 `json:"peak_share"`
	// Models are the models whose evaluation calls bill to Key: the
	// timelines the episode is drawn on.
	Models []string `json:"models,omitempty"`
}

// GuardStats is what a run's guards did.
type GuardStats struct {
	// DeferredTicks counts decisions in which the circuit breaker held
	// every start back while jobs waited; DeferredSeconds is the time the
	// breaker was open; Trips counts the times it opened.
	DeferredTicks   int64   `json:"deferred_ticks"`
	DeferredSeconds float64 `json:"deferred_s"`
	Trips           int64   `json:"trips"`
}

// QuotaRun is a run's quota figures besides the telemetry: retry burn and
// the gateway's virtual-key rejections.
type QuotaRun struct {
	// BurnedEval and BurnedProduction are rejected tries counted against
	// request quotas (RPM/RPD) with count_rejected: retry burn.
	BurnedEval       int64 `json:"rpm_burned_by_rejected_eval"`
	BurnedProduction int64 `json:"rpm_burned_by_rejected_production"`
	KeyRejected      int64 `json:"key_rejected_429"`
	// EvalLastFinish is the time of the last evaluation job's completion
	// (seconds; 0 if none).
	EvalLastFinish float64 `json:"eval_last_finish_s"`
	// EvalTokens counts the tokens of evaluation tries accepted (whole run).
	EvalTokens float64 `json:"eval_tokens"`
	// Clock is the scenario's wall clock at virtual time 0 (seconds since
	// Monday 00:00), to read times as times of day.
	Clock float64 `json:"clock_s"`
}

// quotaTable is the quota telemetry of every run: N used of daily quota M
// per workload, organisation or key, and dimension, with N/M, marking the
// evaluation lines above maxShare (none when maxShare <= 0).
func quotaTable(s Summary, maxShare float64) (table, int) {
	t := table{Title: "Quota telemetry",
		Note: "This run used N of the daily quota M, per workload, organisation (or gateway key) and daily dimension (whole run).",
		Head: []string{"run", "workload", "org/key", "dimension", "used N", "quota M", "N/M", "gate"}}
	over := 0
	for i, r := range s.Runs {
		for _, q := range r.QuotaUse {
			where := q.Org
			if q.Key != "" {
				where = "key " + q.Key
			}
			gate := ""
			if q.Workload == EvaluationWorkload && maxShare > 0 {
				gate = "ok"
				if q.Share > maxShare {
					gate = "OVER"
					over++
				}
			}
			t.Rows = append(t.Rows, []string{roleName(s, i), q.Workload, where, q.Dimension, count(int64(q.Used)), count(int64(q.Quota)),
				share(q.Share), gate})
		}
	}
	return t, over
}

// share prints a share as a percentage with two decimals (0.05 → 5.00%).
func share(x float64) string { return fmt.Sprintf("%.2f%%", 100*x) }

// CheckQuota prints the quota telemetry of a summary and returns the
// number of evaluation lines whose share of a daily quota passes maxShare.
func CheckQuota(w io.Writer, s Summary, maxShare float64) (int, error) {
	t, over := quotaTable(s, maxShare)
	if len(t.Rows) == 0 {
		_, err := fmt.Fprintln(w, "no daily quota used in this run (no organisation or key sets rpd or tpd)")
		return 0, err
	}
	return over, writeTable(w, fmt.Sprintf("quota telemetry (gate: evaluation N/M above %s):", share(maxShare)), t)
}

// QuotaVerdict is quota-check's verdict as JSON (sim quota-check --json):
// every telemetry line with whether it passes the gate.
type QuotaVerdict struct {
	Schema   string      `json:"schema"` // "evalsched-quota-verdict"
	MaxShare float64     `json:"max_share"`
	Pass     bool        `json:"pass"`
	Over     int         `json:"over"` // evaluation lines above max_share
	Lines    []QuotaLine `json:"lines"`
}

// QuotaLine is one telemetry line of a run.
type QuotaLine struct {
	Run string `json:"run"`
	QuotaUse
	Gated bool `json:"gated"` // an evaluation line, checked against max_share
	Over  bool `json:"over"`
}

// CheckQuotaVerdict is CheckQuota's verdict as a value.
func CheckQuotaVerdict(s Summary, maxShare float64) QuotaVerdict {
	v := QuotaVerdict{Schema: "evalsched-quota-verdict", MaxShare: maxShare, Lines: []QuotaLine{}}
	for _, r := range s.Runs {
		for _, q := range r.QuotaUse {
			l := QuotaLine{Run: r.Policy, QuotaUse: q, Gated: q.Workload == EvaluationWorkload}
			l.Over = l.Gated && q.Share > maxShare
			if l.Over {
				v.Over++
			}
			v.Lines = append(v.Lines, l)
		}
	}
	v.Pass = v.Over == 0
	return v
}
