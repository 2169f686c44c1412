package report

import (
	"cmp"
	"io"
	"slices"

	"github.com/evalsched/lab/results"
)

// controllerLanes is how many lanes the controller table shows: the busiest
// of those whose limit a controller moved.
const controllerLanes = 6

// controllerTable sets the runs of a variant comparison side by side, per
// lane whose running-job limit moved (the busiest first): the start's time
// to capacity and settling time, the mean reversals per hour and mean
// |depth − target| over the lane's disturbances, the container-hours its
// jobs spent waiting on the gateway, its throughput and the headroom it
// captured. It has rows only for variant comparisons with convergence rows
// (a controller bake-off such as the controllers scenario).
func controllerTable(s results.Summary) table {
	t := table{Title: "Controllers side by side",
		Note: "Per lane whose running-job limit moved (busiest first) and run: to capacity and settling after the start " +
			"(-1: never; definitions under Convergence), reversals of the limit per hour and mean |depth − target| averaged " +
			"over the lane's disturbances, container-hours waiting on the gateway, jobs/h and the headroom captured.",
		Head: []string{"lane", "run", "to capacity s", "settling s", "reversals/h", "mean |d − T|", "gateway-wait ctr-h", "jobs/h", "headroom captured"}}
	if len(s.Variants) == 0 {
		return t
	}
	for _, model := range controllerLaneOrder(s) {
		for i, r := range s.Runs {
			rows := convergenceOf(r, model)
			if len(rows) == 0 {
				continue
			}
			lane := laneOf(r, model)
			var rev, derr float64
			for _, c := range rows {
				rev += c.ReversalsPerHour / float64(len(rows))
				derr += c.DepthErrMean / float64(len(rows))
			}
			t.Rows = append(t.Rows, []string{model, roleName(s, i), f0(rows[0].TimeToCapacity), f0(rows[0].SettlingTime),
				f1(rev), f0(derr), f0(lane.GatewayWaitContainerSeconds / 3600), f0(lane.ThroughputPerHour), pct(lane.HeadroomCaptured)})
		}
	}
	return t
}

// controllerLaneOrder is the lanes with convergence rows in any run, busiest
// (by the first run's throughput) first, at most controllerLanes.
func controllerLaneOrder(s results.Summary) []string {
	seen := map[string]float64{}
	for _, r := range s.Runs {
		for _, c := range r.Convergence {
			if _, ok := seen[c.Model]; !ok {
				seen[c.Model] = laneOf(s.Runs[0], c.Model).ThroughputPerHour
			}
		}
	}
	names := make([]string, 0, len(seen))
	for m := range seen {
		names = append(names, m)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(seen[b], seen[a]), cmp.Compare(a, b))
	})
	return names[:min(len(names), controllerLanes)]
}

func convergenceOf(r results.Run, model string) []results.ConvergenceRow {
	var rows []results.ConvergenceRow
	for _, c := range r.Convergence {
		if c.Model == model {
			rows = append(rows, c)
		}
	}
	return rows
}

// WriteControllerTable prints the controllers side by side; nothing unless
// the summary compares variants with convergence rows.
func WriteControllerTable(w io.Writer, s results.Summary) error {
	return writeTable(w, "controllers side by side (per lane whose limit moved; to capacity and settling after the start, -1 = never):", controllerTable(s))
}
