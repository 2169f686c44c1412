package lab

import "github.com/evalsched/lab/results"

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
	results.QuotaUse
	Gated bool `json:"gated"` // an evaluation line, checked against max_share
	Over  bool `json:"over"`
}

// CheckQuotaVerdict is CheckQuota's verdict as a value.
func CheckQuotaVerdict(s results.Summary, maxShare float64) QuotaVerdict {
	v := QuotaVerdict{Schema: "evalsched-quota-verdict", MaxShare: maxShare, Lines: []QuotaLine{}}
	for _, r := range s.Runs {
		for _, q := range r.QuotaUse {
			l := QuotaLine{Run: r.Policy, QuotaUse: q, Gated: q.Workload == results.EvaluationWorkload}
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
