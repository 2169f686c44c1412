package policies

import "time"

// AlertMonitor is the pager of the quota alert: it is told, at each
// reading, the share of a quota (key, dimension) used by non-production
// traffic on its sliding window, and keeps an episode log — one episode
// from the first reading above Share to the first reading back at or
// below it, with the peak share seen.
type AlertMonitor struct {
	Share    float64
	open     map[alertKey]int // index into episodes of the open episode
	episodes []AlertEpisode
}

type alertKey struct{ key, dim string }

// AlertEpisode is one alert: Start to End (End zero while open).
type AlertEpisode struct {
	Start, End time.Time
	Key, Dim   string
	Peak       float64
}

// NewAlertMonitor alerts above share (0 → 0.7).
func NewAlertMonitor(share float64) *AlertMonitor {
	if share == 0 {
		share = DefaultAlertShare
	}
	return &AlertMonitor{Share: share, open: map[alertKey]int{}}
}

// DefaultAlertShare is the alert's default threshold.
const DefaultAlertShare = 0.7

// Observe takes one reading of a quota's non-production share at now.
func (a *AlertMonitor) Observe(now time.Time, key, dim string, share float64) {
	k := alertKey{key, dim}
	i, open := a.open[k]
	switch {
	case share > a.Share && !open:
		a.open[k] = len(a.episodes)
		a.episodes = append(a.episodes, AlertEpisode{Start: now, Key: key, Dim: dim, Peak: share})
	case share > a.Share:
		a.episodes[i].Peak = max(a.episodes[i].Peak, share)
	case open:
		a.episodes[i].End = now
		delete(a.open, k)
	}
}

// Episodes is the episode log, in order of start; an episode still open
// ends at end.
func (a *AlertMonitor) Episodes(end time.Time) []AlertEpisode {
	out := append([]AlertEpisode(nil), a.episodes...)
	for i := range out {
		if out[i].End.IsZero() {
			out[i].End = end
		}
	}
	return out
}
