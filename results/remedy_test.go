package results

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRemedyTableTimeline: the incident table reads the outage's first and
// last minute and the first alert as times of day on the scenario's clock
// (here 02:00 at virtual time 0), and shows "-" for a run with neither.
func TestRemedyTableTimeline(t *testing.T) {
	minutes := func(out ...int) []ProductionMinute {
		var ms []ProductionMinute
		for m := 0; m < 180; m++ {
			ms = append(ms, ProductionMinute{Minute: m, Served: 1})
		}
		for _, m := range out {
			ms[m].Outage = true
		}
		return ms
	}
	clock := 2 * 3600.0
	s := Summary{Runs: []Run{
		{Policy: "hit", Quota: &QuotaRun{Clock: clock},
			Production: []ProductionStats{{Name: "a", Minutes: minutes(20, 21, 50)}, {Name: "b", Minutes: minutes(119)}},
			Alerts:     []AlertEpisode{{Start: 1500}, {Start: 900}}},
		{Policy: "spared", Quota: &QuotaRun{Clock: clock}, Production: []ProductionStats{{Name: "a", Minutes: minutes()}}},
	}}
	tab := remedyTable(s)
	col := func(name string) int {
		for i, h := range tab.Head {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %q in %v", name, tab.Head)
		return -1
	}
	var got [][2]string
	for _, row := range tab.Rows {
		got = append(got, [2]string{row[col("outage from–to")], row[col("first alert")]})
	}
	// 02:00 + 20 min to 02:00 + 120 min (the end of minute 119); the
	// earliest alert is at 900 s = 02:15, whatever the episodes' order.
	want := [][2]string{{"02:20–04:00", "02:15"}, {"-", "-"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outage span and first alert (-want +got):\n%s", diff)
	}
	if !strings.Contains(tab.Note, "Outage from–to") {
		t.Error("the note does not say what the new columns are")
	}
}
