package sim

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
)

// fairnessCase is a scenario the fairness tests replay from its log.
type fairnessCase struct {
	name string
	sc   *scenario.Scenario
}

// fairnessCases are three hours of the small scenario with 10-minute
// fairness windows: a backlog of few projects, one of many, and light load.
func fairnessCases(t *testing.T) []fairnessCase {
	var cases []fairnessCase
	for _, c := range []struct {
		name       string
		containers int
		accounts   int
	}{
		{"backlog", 6, 4},
		{"many projects", 10, 300},
		{"light", 200, 4},
	} {
		cases = append(cases, fairnessCase{c.name, smallScenario(t, func(sc *scenario.Scenario) {
			sc.Duration = 3 * time.Hour
			sc.FairnessWindow = 10 * time.Minute
			sc.Containers.Capacity = c.containers
			sc.Workload.Accounts = c.accounts
		})})
	}
	return cases
}

// TestFairnessWindowsFromTheLog: the Jain windows the recorder keeps
// incrementally (fairness.go: the busy projects, told at samples by their
// lane projects that moved since the last; the window's candidates; a
// project's admissions summed from its lane projects', a tier's from its
// groups') equal a full scan of every project at every sample, replayed
// from the event log (job arrivals and starts with their projects and
// tiers, and the samples): a project counts in a window when it had jobs
// waiting at every sample of it, with the jobs it started in the window.
func TestFairnessWindowsFromTheLog(t *testing.T) {
	for _, c := range fairnessCases(t) {
		for _, policy := range scenario.PolicyNames() {
			t.Run(c.name+"/"+policy, func(t *testing.T) {
				sc := c.sc
				w := runWorld(t, sc, policy, Options{Seed: 3, Log: true}, nil)
				want := fairnessFromLog(w.Log(), FromDuration(sc.FairnessWindow), FromDuration(sc.Warmup))
				got := w.Fairness().Windows
				if len(want) < 10 {
					t.Fatalf("only %d windows: the test needs more", len(want))
				}
				backlogged := 0
				for i := range max(len(want), len(got)) {
					if i >= len(want) || i >= len(got) {
						t.Fatalf("%d windows, the log gives %d", len(got), len(want))
					}
					g, x := got[i], want[i]
					if !maps.Equal(g.TierAdmitted, x.TierAdmitted) {
						t.Errorf("window %d: admitted by tier %v; the log gives %v", i, g.TierAdmitted, x.TierAdmitted)
					}
					if g.Start != x.Start || g.End != x.End || g.Backlogged != x.Backlogged || g.JainCrossLane != x.JainCrossLane {
						t.Errorf("window %d: start %v end %v, %d backlogged, Jain %v; the log gives %v %v, %d, %v",
							i, g.Start, g.End, g.Backlogged, g.JainCrossLane, x.Start, x.End, x.Backlogged, x.JainCrossLane)
					}
					backlogged += x.Backlogged
				}
				t.Logf("%d windows, %d backlogged project-windows", len(want), backlogged)
			})
		}
	}
}

// fairnessFromLog recomputes the fairness windows from the event log by a
// full scan of every project at every sample, with the window's admissions
// by tier.
func fairnessFromLog(log []LogRecord, window, warmup Time) []results.FairnessWindow {
	type project struct {
		waiting, admitted int
		backlogged        bool
	}
	var projects []*project // by project number
	var out []results.FairnessWindow
	start := Time(0)
	tiers := map[string]int64{}
	for _, rec := range log {
		switch rec.Event {
		case LogJobArrive:
			for int(rec.Project) >= len(projects) {
				projects = append(projects, &project{})
			}
			projects[rec.Project].waiting++
		case LogJobStart:
			p := projects[rec.Project]
			p.waiting--
			p.admitted++
			tiers[tierName(rec.Tier)]++
		case LogSample:
			if rec.T-start >= window {
				if start >= warmup {
					var xs []float64
					for _, p := range projects {
						if p.backlogged {
							xs = append(xs, float64(p.admitted))
						}
					}
					out = append(out, results.FairnessWindow{Start: start.Seconds(), End: rec.T.Seconds(),
						Backlogged: len(xs), JainCrossLane: results.Jain(xs), TierAdmitted: tiers})
				}
				tiers = map[string]int64{}
				start = rec.T
				for _, p := range projects {
					p.admitted, p.backlogged = 0, true
				}
			}
			for _, p := range projects {
				p.backlogged = p.backlogged && p.waiting > 0
			}
		}
	}
	return slices.Clip(out)
}
