package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/evalsched/lab/results"
)

// fin maps NaN and infinities (which the plotting library rejects) to 0.
func fin(v float64) float64 {
	if !results.Finite(v) {
		return 0
	}
	return v
}

// runsOf returns the baseline and candidate runs: the first two runs of a
// comparison, or (nil, the run) for a single run.
func runsOf(s results.Summary) (old, new *results.Run) {
	switch len(s.Runs) {
	case 0:
		return nil, nil
	case 1:
		return nil, &s.Runs[0]
	}
	return &s.Runs[0], &s.Runs[1]
}

// comparisonRows is the summary's comparison, or one computed from its first
// two runs.
func comparisonRows(s results.Summary) []results.LaneComparison {
	if len(s.Comparison) > 0 {
		return s.Comparison
	}
	old, new := runsOf(s)
	if old == nil {
		return nil
	}
	return results.Compare(*old, *new)
}

// timeUnit picks hours for runs longer than three hours, else minutes.
func timeUnit(end float64) (scale float64, unit string) {
	if end > 3*3600 {
		return 3600, "h"
	}
	return 60, "min"
}

// runEnd is the end of the longest run, in seconds (0 if none).
func runEnd(o *input) float64 {
	end := 0.0
	for _, r := range o.Summary.Runs {
		end = max(end, fin(r.Window[1]))
	}
	for _, r := range o.Series {
		end = max(end, fin(r.T))
	}
	return end
}

// policyRoles places the policies of an output directory in the figures:
// a policy with a run takes that run's colour and role label; one found only
// in the CSV files takes the colour of its position among policies(o) and
// its bare name.
type policyRoles struct {
	s     results.Summary
	index map[string]int // the first run of each policy
}

func newPolicyRoles(s results.Summary) policyRoles {
	m := map[string]int{}
	for i, r := range s.Runs {
		if _, ok := m[r.Policy]; !ok {
			m[r.Policy] = i
		}
	}
	return policyRoles{s: s, index: m}
}

// colorIndex is the policyColor index of pol, the k-th of policies(o).
func (pr policyRoles) colorIndex(pol string, k int) int {
	if i, ok := pr.index[pol]; ok {
		return i
	}
	return k
}

// label is pol's legend label.
func (pr policyRoles) label(pol string) string {
	if i, ok := pr.index[pol]; ok {
		return roleName(pr.s, i)
	}
	return pol
}

// policies lists the policies of the summary's runs, then any others that
// only appear in the CSV files.
func policies(o *input) []string {
	var ps []string
	seen := map[string]bool{}
	for _, r := range o.Summary.Runs {
		if !seen[r.Policy] {
			seen[r.Policy] = true
			ps = append(ps, r.Policy)
		}
	}
	for _, r := range o.Series {
		if !seen[r.Policy] {
			seen[r.Policy] = true
			ps = append(ps, r.Policy)
		}
	}
	return ps
}

func roleName(s results.Summary, i int) string {
	if i >= len(s.Runs) {
		return ""
	}
	name := s.Runs[i].Policy
	switch {
	case len(s.Variants) > 0 && i == 0:
		name += " (baseline)" // variants: every other run is compared with the first
	case len(s.Variants) == 0 && len(s.Runs) >= 2 && i < 2:
		name += [2]string{" (old)", " (new)"}[i]
	}
	return name
}

func formatMult(m *float64) string {
	if m == nil {
		return "new"
	}
	if *m >= 9.95 {
		return fmt.Sprintf("%.0f×", *m)
	}
	return fmt.Sprintf("%.2f×", *m)
}

func formatCount(v float64) string {
	switch {
	case v >= 1e4:
		return fmt.Sprintf("%.0fk", v/1e3)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	case v >= 10 || v == 0:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// formatClock formats seconds as 1h30m, 40m, 90s.
func formatClock(t float64) string {
	if !results.Finite(t) {
		return "?"
	}
	s := int64(math.Round(t))
	h, m, sec := s/3600, s%3600/60, s%60
	switch {
	case h > 0 && m == 0 && sec == 0:
		return fmt.Sprintf("%dh", h)
	case h > 0 && sec == 0:
		return fmt.Sprintf("%dh%02dm", h, m)
	case h > 0:
		return fmt.Sprintf("%dh%02dm%02ds", h, m, sec)
	case m > 0 && sec == 0:
		return fmt.Sprintf("%dm", m)
	case m > 0:
		return fmt.Sprintf("%dm%02ds", m, sec)
	}
	return fmt.Sprintf("%ds", sec)
}

// FormatTierShares prints tier shares as "tier 1 10%, tier 2 24%, ...".
func FormatTierShares(m map[string]float64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("tier %s %.0f%%", k, 100*fin(m[k])))
	}
	if len(parts) == 0 {
		return "(none)"
	}
	return strings.Join(parts, ", ")
}
