package sim

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
)

// laneLog is what a brute-force replay of the event log gives of per-lane
// fairness: the lane windows, the jobs' waits and the time-to-share
// episodes, ended and censored.
type laneLog struct {
	windows          [][]results.LaneWindow // by window after warm-up
	waits, waitsCens []float64
	share, shareCens []float64
}

// laneFairnessFromLog recomputes per-lane fairness from the event log by a
// full scan of every (project, model, tier) at every sample and every
// admission: a pair (of one tier: those take turns) is backlogged in a
// window when it had jobs waiting at every sample of it; its admissions are
// its job starts, its tokens those of its jobs' calls answered in the
// window. A project's equal share on a lane, from when it started waiting
// there behind others of its tier, grows at each admission of the tier on
// the lane by 1/(pairs of the tier with jobs waiting on the lane).
func laneFairnessFromLog(log []LogRecord, names []string, window, warmup, end Time) laneLog {
	type pair struct {
		project, model    int32
		tier              int8
		waiting, admitted int
		tokens            float64
		backlogged        bool
		epStart           Time
		epOwed, owedSoFar float64
		epGot             int
	}
	var pairs []*pair // in order of first arrival on their lane
	byKey := map[[3]int32]*pair{}
	type job struct {
		p       *pair
		arrival Time
		started bool
	}
	jobs := map[int64]*job{}
	var out laneLog
	start := Time(0)
	for _, rec := range log {
		switch rec.Event {
		case LogJobArrive:
			k := [3]int32{rec.Project, rec.Model, int32(rec.Tier)}
			p := byKey[k]
			if p == nil {
				p = &pair{project: rec.Project, model: rec.Model, tier: rec.Tier, epStart: -1}
				byKey[k] = p
				pairs = append(pairs, p)
			}
			jobs[int64(rec.Job)] = &job{p: p, arrival: rec.T}
			if p.waiting == 0 && rec.T >= warmup {
				others := 0
				for _, q := range pairs {
					if q.model == p.model && q.tier == p.tier && q != p && q.waiting > 0 {
						others++
					}
				}
				if others > 0 {
					p.epStart, p.epOwed, p.epGot = rec.T, p.owedSoFar, 0
				}
			}
			p.waiting++
		case LogJobStart:
			j := jobs[int64(rec.Job)]
			p := j.p
			n := 0
			for _, q := range pairs {
				if q.model == p.model && q.tier == p.tier && q.waiting > 0 {
					n++
				}
			}
			for _, q := range pairs {
				if q.model == p.model && q.tier == p.tier && q.waiting > 0 {
					q.owedSoFar += 1 / float64(n)
				}
			}
			p.admitted++
			if j.arrival >= warmup {
				out.waits = append(out.waits, float64(float32((rec.T - j.arrival).Seconds())))
			}
			j.started = true
			if p.epStart >= 0 {
				p.epGot++
				if float64(p.epGot) >= (1-results.FairShareBand)*(p.owedSoFar-p.epOwed)-1e-6 {
					out.share = append(out.share, (rec.T - p.epStart).Seconds())
					p.epStart = -1
				}
			}
			p.waiting--
			if p.waiting == 0 && p.epStart >= 0 {
				out.share = append(out.share, (rec.T - p.epStart).Seconds())
				p.epStart = -1
			}
		case LogCallAnswer:
			if j, ok := jobs[int64(rec.Job)]; ok && rec.Job >= 0 {
				j.p.tokens += float64(rec.Tokens)
			}
		case LogJobFinish, LogJobFail:
			delete(jobs, int64(rec.Job))
		case LogSample:
			if rec.T-start >= window {
				if start >= warmup {
					var ws []results.LaneWindow
					for m := range names {
						for tier := 0; tier < 128; tier++ {
							var xs, ys []float64
							admitted, any := int64(0), false
							for _, p := range pairs {
								if int(p.model) != m || int(p.tier) != tier {
									continue
								}
								any = true
								admitted += int64(p.admitted)
								if p.backlogged {
									xs, ys = append(xs, float64(p.admitted)), append(ys, p.tokens)
								}
							}
							if any && len(xs) >= 2 {
								ws = append(ws, results.LaneWindow{Model: names[m], Tier: tierName(int8(tier)), Backlogged: len(xs), Admitted: admitted,
									Jain: results.Jain(xs), JainTokens: results.Jain(ys)})
							}
						}
					}
					out.windows = append(out.windows, ws)
				}
				start = rec.T
				for _, p := range pairs {
					p.admitted, p.tokens, p.backlogged = 0, 0, true
				}
			}
			for _, p := range pairs {
				p.backlogged = p.backlogged && p.waiting > 0
			}
		}
	}
	for _, j := range jobs {
		if !j.started && j.arrival >= warmup {
			out.waitsCens = append(out.waitsCens, (end - j.arrival).Seconds())
		}
	}
	for _, p := range pairs {
		if p.epStart >= 0 {
			out.shareCens = append(out.shareCens, (end - p.epStart).Seconds())
		}
	}
	return out
}

// TestLaneFairnessFromTheLog: the per-lane fairness the recorder keeps
// incrementally (per-lane bitsets of backlogged projects, window ids, a
// running sum of equal shares) equals the brute-force replay of the event
// log: the lane windows (backlogged projects, admissions, Jain by jobs and
// by tokens), the Kaplan–Meier figures of the jobs' waits and of the times
// to an equal share, ended and censored.
func TestLaneFairnessFromTheLog(t *testing.T) {
	cases := fairnessCases(t)
	if !testing.Short() {
		// The default scenario cut to its warm-up and the first hour of
		// its measurement window (the whole four hours' log would hold
		// tens of millions of records): six windows on its six hot lanes.
		sc, err := scenario.LoadScenario("embedded:default")
		if err != nil {
			t.Fatal(err)
		}
		sc.Duration = sc.Warmup + time.Hour
		cases = append(cases, fairnessCase{"default", sc})
	}
	for _, c := range cases {
		for _, policy := range scenario.PolicyNames() {
			t.Run(c.name+"/"+policy, func(t *testing.T) {
				sc := c.sc
				w := runWorld(t, sc, policy, Options{Seed: 3, Log: true}, nil)
				end := FromDuration(sc.Duration)
				want := laneFairnessFromLog(w.Log(), sc.Catalogue(), FromDuration(sc.FairnessWindow), FromDuration(sc.Warmup), end)
				d := w.Fairness()
				got := d.Windows
				if len(want.windows) != len(got) {
					t.Fatalf("%d windows, the log gives %d", len(got), len(want.windows))
				}
				laneWindows := 0
				for i := range got {
					g, x := got[i].Lanes, want.windows[i]
					if len(g) != len(x) {
						t.Fatalf("window %d: %d contested lanes %v, the log gives %d %v", i, len(g), g, len(x), x)
					}
					for k := range g {
						if g[k].Model != x[k].Model || g[k].Tier != x[k].Tier || g[k].Backlogged != x[k].Backlogged || g[k].Admitted != x[k].Admitted ||
							math.Abs(g[k].Jain-x[k].Jain) > 1e-12 || math.Abs(g[k].JainTokens-x[k].JainTokens) > 1e-12 {
							t.Errorf("window %d lane %d: %+v, the log gives %+v", i, k, g[k], x[k])
						}
					}
					laneWindows += len(g)
				}
				for _, s := range []struct {
					name      string
					got       results.Survival
					ended, cs []float64
				}{
					{"job waits", d.Waits, want.waits, want.waitsCens},
					{"time to share", d.FairShare, want.share, want.shareCens},
				} {
					ge, gc := slices.Sorted(slices.Values(s.got.Ended)), slices.Sorted(slices.Values(s.got.Censored))
					xe, xc := slices.Sorted(slices.Values(s.ended)), slices.Sorted(slices.Values(s.cs))
					if !slices.Equal(ge, xe) || !closeAll(gc, xc) {
						t.Errorf("%s: %d ended, %d censored; the log gives %d, %d", s.name, len(ge), len(gc), len(xe), len(xc))
					}
				}
				sum := results.Summarize(results.RunData{Fairness: d}).Fairness
				t.Logf("%d lane-windows; Jain per lane %s by jobs, %s by tokens (cross-lane %s); waits %d/%d censored; fair share %d/%d censored, p50 %.0f s",
					laneWindows, results.JainText(sum.JainPerLane), results.JainText(sum.JainPerLaneTokens), results.JainText(sum.JainCrossLane), sum.JobWait.Ended, sum.JobWait.Censored,
					sum.TimeToFairShare.Ended, sum.TimeToFairShare.Censored, sum.TimeToFairShare.P50)
				if c.name == "backlog" && laneWindows == 0 {
					t.Fatal("no contested lane-window: the case tests nothing")
				}
			})
		}
	}
}

// closeAll: equal lengths, and equal to a microsecond (the recorder and the
// replay read the end of the run from different clocks' rounding).
func closeAll(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-6 {
			return false
		}
	}
	return true
}
