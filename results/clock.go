package results

import "fmt"

// ClockTime reads seconds since Monday 00:00 as a time of day, after the
// day of the week with days ("Tue 14:05"): in a run of more than a day a
// time of day alone does not say which day.
func ClockTime(s float64, days bool) string {
	m := int(s/60) % (24 * 60)
	hm := fmt.Sprintf("%02d:%02d", m/60, m%60)
	if days {
		return weekdays[int(s/86400)%7] + " " + hm
	}
	return hm
}

var weekdays = [7]string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}

// OutageSpan is the first and the last outage minute of any production
// stream (minute indices; ok false when there is none): the incident's
// timeline.
func OutageSpan(prod []ProductionStats) (first, last int, ok bool) {
	first, last = -1, -1
	for _, p := range prod {
		for _, m := range p.Minutes {
			if !m.Outage {
				continue
			}
			if first < 0 || m.Minute < first {
				first = m.Minute
			}
			last = max(last, m.Minute)
		}
	}
	return first, last, first >= 0
}

// Count formats an integer with thousands separators: 1,015,501.
func Count(n int64) string {
	s := fmt.Sprint(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
