package results

import (
	"cmp"
	"fmt"
	"slices"
)

// FairnessSummary is a run's fairness (docs/reference/metrics.md, Fairness): Jain's index per
// lane over the projects backlogged on it, by jobs and by tokens; the tier
// rule as stated; small batches' makespans and jobs' waits with censoring
// (Kaplan–Meier); the time a project takes to reach its equal share; the
// cross-lane index and the plain tier shares of admissions; the makespans of
// the small batches that finished.
type FairnessSummary struct {
	// JainPerLane and JainPerLaneTokens: Jain's index on a lane in a
	// window, over the lanes and windows with at least two projects
	// backlogged on the lane through the window, weighted by the lane's
	// admissions in the window; LaneWindows is how many such (lane,
	// window) pairs there were, Lanes the same per lane. Nil (null) when
	// undefined: no such pair, or no admission in any.
	JainPerLane       *float64       `json:"jain_per_lane"`
	JainPerLaneTokens *float64       `json:"jain_per_lane_tokens"`
	LaneWindows       int            `json:"lane_windows"`
	Lanes             []LaneFairness `json:"lanes"`
	// JainCrossLane is the mean over windows with at least two backlogged
	// projects of Jain's index over all of them, whatever lane each waited
	// on; nil (null) when no window had two.
	JainCrossLane *float64           `json:"jain_cross_lane_mean"`
	Windows       []FairnessWindow   `json:"windows"`
	TierShares    map[string]float64 `json:"tier_shares"`
	TierRule      []TierRuleSummary  `json:"tier_rule"`
	SmallBatches  int                `json:"small_batches"`
	// SmallUnfinished and BehindLargeUnfinished are the censored small
	// batches; the *_km fields are Kaplan–Meier over finished and censored.
	SmallUnfinished       int   `json:"small_batches_unfinished"`
	SmallMakespan         Stats `json:"small_batch_makespan_s"`
	SmallMakespanKM       KM    `json:"small_batch_makespan_km"`
	BehindLarge           int   `json:"small_batches_behind_large"`
	BehindLargeUnfinished int   `json:"small_batches_behind_large_unfinished"`
	BehindLargeMakespan   Stats `json:"small_behind_large_makespan_s"`
	BehindLargeKM         KM    `json:"small_behind_large_makespan_km"`
	// JobWait: jobs that arrived in the window, from arrival to a
	// container, censored when still waiting at the end.
	JobWait KM `json:"job_wait_km"`
	// TimeToFairShare: from a project starting to wait on a lane where
	// others wait to its admissions reaching (1 − FairShareBand) of its
	// equal share (or all it asked for); censored when neither by the end.
	TimeToFairShare KM      `json:"time_to_fair_share_km"`
	FairShareBand   float64 `json:"fair_share_band"`
}

// FairShareBand is how far below its equal share a project's admissions
// may be and count as having reached it: admissions ≥ (1 − band) × share.
const FairShareBand = 0.2

// LaneFairness is Jain's index on one lane, weighted by its admissions
// over the windows with at least two projects backlogged on it.
type LaneFairness struct {
	Model      string   `json:"model"`
	Windows    int      `json:"windows"`
	Admitted   int64    `json:"admitted"`
	Jain       *float64 `json:"jain"` // nil (null): no admission to weigh by
	JainTokens *float64 `json:"jain_tokens"`
}

// TierRuleSummary is a tier's TierRule with its shares: Taken ÷ Offered,
// TakenHigher ÷ OfferedHigher (-1 when nothing was offered), and
// AdmittedHigher per HigherBackloggedHours (-1 when never behind a higher
// tier).
type TierRuleSummary struct {
	TierRule
	Share                 float64 `json:"share"`
	ShareHigherBacklogged float64 `json:"share_higher_backlogged"`
	AdmittedPerHour       float64 `json:"admitted_per_hour_higher_backlogged"`
}

func orNone(a, b float64) float64 {
	if b == 0 {
		return -1
	}
	return a / b
}

// definedRatio is a / b, nil when b is 0: a mean over nothing is
// undefined, not 0 (Jain's index is never below 1/n).
func definedRatio(a, b float64) *float64 {
	if b == 0 {
		return nil
	}
	r := a / b
	return &r
}

// JainText prints a Jain's index to two decimals, "-" when undefined.
func JainText(j *float64) string {
	if j == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *j)
}

func summarizeFairness(d FairnessData) FairnessSummary {
	f := FairnessSummary{Windows: d.Windows, TierShares: map[string]float64{}, Lanes: []LaneFairness{},
		TierRule: []TierRuleSummary{}, FairShareBand: FairShareBand}
	if f.Windows == nil {
		f.Windows = []FairnessWindow{}
	}
	n := 0
	var wSum, jSum, tSum, cross float64
	lanes := map[string]int{}
	var sums [][2]float64 // per lane: its Jain and Jain by tokens, weighted by admissions
	for _, w := range d.Windows {
		if w.Backlogged >= 2 {
			cross += w.JainCrossLane
			n++
		}
		for _, lw := range w.Lanes {
			k, ok := lanes[lw.Model]
			if !ok {
				k = len(f.Lanes)
				lanes[lw.Model] = k
				f.Lanes = append(f.Lanes, LaneFairness{Model: lw.Model})
				sums = append(sums, [2]float64{})
			}
			l := &f.Lanes[k]
			l.Windows++
			l.Admitted += lw.Admitted
			a := float64(lw.Admitted)
			sums[k][0] += a * lw.Jain
			sums[k][1] += a * lw.JainTokens
			wSum, jSum, tSum = wSum+a, jSum+a*lw.Jain, tSum+a*lw.JainTokens
			f.LaneWindows++
		}
	}
	for i := range f.Lanes {
		l := &f.Lanes[i]
		l.Jain, l.JainTokens = definedRatio(sums[i][0], float64(l.Admitted)), definedRatio(sums[i][1], float64(l.Admitted))
	}
	slices.SortStableFunc(f.Lanes, func(a, b LaneFairness) int { return cmp.Compare(b.Admitted, a.Admitted) })
	f.JainPerLane, f.JainPerLaneTokens = definedRatio(jSum, wSum), definedRatio(tSum, wSum)
	f.JainCrossLane = definedRatio(cross, float64(n))
	var total int64
	for _, v := range d.TierAdmitted {
		total += v
	}
	for k, v := range d.TierAdmitted {
		f.TierShares[k] = Ratio(float64(v), float64(total))
	}
	for _, t := range d.Tiers {
		f.TierRule = append(f.TierRule, TierRuleSummary{TierRule: t,
			Share:                 orNone(float64(t.Taken), float64(t.Offered)),
			ShareHigherBacklogged: orNone(float64(t.TakenHigher), float64(t.OfferedHigher)),
			AdmittedPerHour:       orNone(float64(t.AdmittedHigher), t.HigherBackloggedHours)})
	}
	sb := d.Small
	f.SmallBatches, f.BehindLarge, f.SmallUnfinished = sb.Count, sb.BehindLarge, sb.Unfinished
	f.BehindLargeUnfinished = len(sb.BehindLargeCensored)
	// NewStats and NewKM sort in place: copies, so the run's data stay as measured.
	all, behind := slices.Clone(sb.Makespans), slices.Clone(sb.BehindLargeMakespans)
	f.SmallMakespan, f.BehindLargeMakespan = NewStats(all), NewStats(behind)
	f.SmallMakespanKM = NewKM(Survival{Ended: all, Censored: slices.Clone(sb.Censored)})
	f.BehindLargeKM = NewKM(Survival{Ended: behind, Censored: slices.Clone(sb.BehindLargeCensored)})
	f.JobWait = NewKM(Survival{Ended: slices.Clone(d.Waits.Ended), Censored: slices.Clone(d.Waits.Censored)})
	f.TimeToFairShare = NewKM(Survival{Ended: slices.Clone(d.FairShare.Ended), Censored: slices.Clone(d.FairShare.Censored)})
	return f
}
