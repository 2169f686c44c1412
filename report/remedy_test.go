package report

import (
	"strings"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/google/go-cmp/cmp"
)

// TestRemedyTableTimeline: the incident table reads the outage's first and
// last minute and the first alert as times of day on the scenario's clock
// (here 02:00 at virtual time 0), and shows "-" for a run with neither.
func TestRemedyTableTimeline(t *testing.T) {
	minutes := func(out ...int) []results.ProductionMinute {
		var ms []results.ProductionMinute
		for m := 0; m < 180; m++ {
			ms = append(ms, results.ProductionMinute{Minute: m, Served: 1})
		}
		for _, m := range out {
			ms[m].Outage = true
		}
		return ms
	}
	clock := 2 * 3600.0
	s := results.Summary{Runs: []results.Run{
		{Policy: "hit", Quota: &results.QuotaRun{Clock: clock},
			Production: []results.ProductionStats{{Name: "a", Minutes: minutes(20, 21, 50)}, {Name: "b", Minutes: minutes(119)}},
			Alerts:     []results.AlertEpisode{{Start: 1500}, {Start: 900}}},
		{Policy: "spared", Quota: &results.QuotaRun{Clock: clock}, Production: []results.ProductionStats{{Name: "a", Minutes: minutes()}}},
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

// TestRemedyTableNamesTheDayInLongRuns: in a run of more than a day the
// times carry the day of the week (the clock's week starts Monday 00:00), so
// an outage on Wednesday is not read as Monday's; a run within a day keeps
// the bare time of day.
func TestRemedyTableNamesTheDayInLongRuns(t *testing.T) {
	day := 24 * 3600.0
	run := func(window float64) results.Run {
		ms := make([]results.ProductionMinute, 3*24*60)
		for m := range ms {
			ms[m] = results.ProductionMinute{Minute: m, Served: 1}
		}
		ms[2*24*60+14*60+5].Outage = true // Wednesday 14:05 on a clock starting Monday 00:00
		return results.Run{Policy: "p", Window: [2]float64{0, window},
			Quota:      &results.QuotaRun{Clock: 0, EvalLastFinish: day + 3600}, // Tuesday 01:00
			Production: []results.ProductionStats{{Name: "a", Minutes: ms}}}
	}
	for _, tc := range []struct {
		window       float64
		span, finish string
	}{
		{3 * day, "Wed 14:05–Wed 14:06", "Tue 01:00"},
		{day, "14:05–14:06", "01:00"},
	} {
		tab := remedyTable(results.Summary{Runs: []results.Run{run(tc.window)}})
		row := tab.Rows[0]
		got := [2]string{row[2], row[5]}
		if diff := cmp.Diff([2]string{tc.span, tc.finish}, got); diff != "" {
			t.Errorf("window %v s: outage span and eval finish (-want +got):\n%s", tc.window, diff)
		}
	}
}
