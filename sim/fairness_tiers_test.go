package sim

import (
	"math"
	"slices"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
)

// tierRuleFromLog recomputes the tier rule from the event log, keeping
// every lane's jobs waiting per tier and scanning them at every arrival and
// admission: the tiers waiting on a lane are those with jobs waiting; an
// admission in the window while two tiers or more wait leaves the slot to
// each tier from the first down to the job's, which the job's took; the
// time two tiers or more wait is added, in the window, to each tier below
// the first. It also counts the lanes that gained a tier while another one
// waited (the lanes whose set of tiers the recorder starts keeping then).
func tierRuleFromLog(log []LogRecord, warmup, end, last Time) (rules map[string]results.TierRule, gained int) {
	type lane struct {
		waiting map[int8]int
		seen    map[int8]bool
		since   Time
	}
	lanes := map[int32]*lane{}
	rules = map[string]results.TierRule{}
	up := func(l *lane) []int8 {
		var ts []int8
		for t, n := range l.waiting {
			if n > 0 {
				ts = append(ts, t)
			}
		}
		slices.Sort(ts)
		return ts
	}
	// changes: the set of tiers waiting on l changes at now.
	changes := func(l *lane, now Time) {
		now = min(now, end)
		if ts := up(l); len(ts) >= 2 {
			if from := max(l.since, warmup); now > from {
				for _, u := range ts[1:] {
					r := rules[tierName(u)]
					r.HigherBackloggedHours += (now - from).Seconds() / 3600
					rules[tierName(u)] = r
				}
			}
		}
		l.since = now
	}
	for _, rec := range log {
		l := lanes[rec.Model]
		if l == nil && rec.Event == LogJobArrive {
			l = &lane{waiting: map[int8]int{}, seen: map[int8]bool{}}
			lanes[rec.Model] = l
		}
		switch rec.Event {
		case LogJobArrive:
			if !l.seen[rec.Tier] && len(up(l)) > 0 {
				gained++
			}
			l.seen[rec.Tier] = true
			if l.waiting[rec.Tier] == 0 {
				changes(l, rec.T)
			}
			l.waiting[rec.Tier]++
		case LogJobStart:
			ts := up(l)
			if len(ts) > 1 && rec.T >= warmup {
				for k, u := range ts {
					if u > rec.Tier || k == len(ts)-1 {
						break
					}
					r := rules[tierName(u)]
					r.Offered++
					if k > 0 {
						r.OfferedHigher++
					}
					if u == rec.Tier {
						r.Taken++
						if k > 0 {
							r.TakenHigher++
						}
					}
					rules[tierName(u)] = r
				}
				if ts[0] < rec.Tier {
					r := rules[tierName(rec.Tier)]
					r.AdmittedHigher++
					rules[tierName(rec.Tier)] = r
				}
			}
			if l.waiting[rec.Tier] == 1 {
				changes(l, rec.T)
			}
			l.waiting[rec.Tier]--
		}
	}
	for _, l := range lanes {
		changes(l, last)
	}
	for name, r := range rules {
		if r == (results.TierRule{}) {
			delete(rules, name)
		} else {
			r.Tier = name
			rules[name] = r
		}
	}
	return rules, gained
}

// TestTierRuleFromTheLog: the tier rule the recorder keeps (its lanes' sets
// of tiers waiting, kept from a lane's second tier on; a tier's jobs
// waiting told by its projects waiting) equals a replay of the event log
// that keeps every tier's jobs waiting per lane and scans them, on
// scenarios with tiers mixed on each lane.
func TestTierRuleFromTheLog(t *testing.T) {
	cases := fairnessCases(t)
	cases = append(cases, fairnessCase{"tier backlog", tierBacklogScenario(t, 0.8)})
	gainedAll := 0
	for _, c := range cases {
		for _, policy := range scenario.PolicyNames() {
			t.Run(c.name+"/"+policy, func(t *testing.T) {
				sc := c.sc
				w := runWorld(t, sc, policy, Options{Seed: 3, Log: true}, nil)
				want, gained := tierRuleFromLog(w.Log(), FromDuration(sc.Warmup), FromDuration(sc.Duration), w.now())
				gainedAll += gained
				got := map[string]results.TierRule{}
				for _, r := range w.Fairness().Tiers {
					got[r.Tier] = r
				}
				if len(want) < 2 {
					t.Fatalf("the log gives the tier rule of %d tiers: the test needs more", len(want))
				}
				for name := range mapUnion(got, want) {
					g, x := got[name], want[name]
					gh, xh := g.HigherBackloggedHours, x.HigherBackloggedHours
					g.HigherBackloggedHours, x.HigherBackloggedHours = 0, 0
					if g != x || math.Abs(gh-xh) > 1e-9*max(1, xh) {
						t.Errorf("tier %s: %+v (%v h); the log gives %+v (%v h)", name, g, gh, x, xh)
					}
				}
				t.Logf("%d tiers, %d lanes gained a tier while another waited", len(want), gained)
			})
		}
	}
	if gainedAll == 0 {
		t.Errorf("no lane gained a tier while another waited: the test needs one")
	}
}

// mapUnion is the keys of a and b.
func mapUnion[V any](a, b map[string]V) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}
