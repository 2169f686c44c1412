package studies

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
)

// The quota-bound study's arms: azure-production with the anthropic
// organisation's TPM at 20M (the variants' overlay), under fixed-lane, the
// scheduler, the scheduler with job_rate_hold and the old depth signal.
var quotaBoundArms = []string{"quota-fixed-lane", "quota-scheduler", "quota-scheduler-hold", "quota-old-signal"}

// QuotaBoundSeeds is the study's seeds: ten, enough for an interval on
// each lane's multiplier (each seed is a 4 h run of 241 models).
const QuotaBoundSeeds = 10

// The controls: settings of the scheduler the study varies on the
// quota-scheduler arm, each with what it tells.
var quotaBoundControls = []studyArm{
	// The quota probe off: raises near a quota at the depth signal's pace
	// (quota_dead_time equal to the default dead time, 3 ticks of 10 s).
	{Variant: "quota-scheduler", Label: "probe-off", Overlay: "policies: {scheduler: {quota_dead_time: 30s}}"},
	// gpt-5.5's limit pinned at fixed-lane's cap: is the shortfall the
	// order the scheduler runs jobs in, or the concurrency it settles at?
	{Variant: "quota-scheduler", Label: "pinned-60", Overlay: "policies: {scheduler: {models: {gpt-5.5: {min_limit: 60, max_limit: 60}}}}"},
	// No lowering on persistent 429s.
	{Variant: "quota-scheduler", Label: "no-lower", Overlay: "policies: {scheduler: {reject_lower_after: 100000}}"},
}

// GenerateQuotaBoundStudy runs the four arms on seeds 1–10 of
// azure-production and writes docs/studies/quota-bound-lanes.md.
func GenerateQuotaBoundStudy(StudyOptions) (string, error) {
	sc, err := scenario.LoadScenario("azure-production")
	if err != nil {
		return "", err
	}
	arms := make([]studyArm, len(quotaBoundArms))
	for i, v := range quotaBoundArms {
		arms[i] = studyArm{Variant: v}
	}
	arms = append(arms, quotaBoundControls...)
	catalogue := sc.Catalogue()
	group := make([]bool, len(catalogue))
	for i, m := range sc.ModelConfigs() {
		group[i] = m.Org == "anthropic"
	}
	series := make([][]*laneSeries, QuotaBoundSeeds)
	for k := range series {
		series[k] = make([]*laneSeries, len(arms))
		for a := range arms {
			series[k][a] = newLaneSeries(len(catalogue), sc.Warmup.Seconds(), group)
		}
	}
	runs, err := runArmsRows(sc, arms, studySeeds(1, QuotaBoundSeeds), func(k, a int) results.RowSink { return series[k][a] })
	if err != nil {
		return "", err
	}
	for _, per := range series {
		for _, s := range per {
			s.closeSum()
		}
	}
	q := quotaBoundSeries{series: series, index: func(model string) int { return slices.Index(catalogue, model) }}
	return quotaBoundStudy(sc, runs, q), nil
}

// quotaBoundSeries is what the study read of the runs' series:
// series[k][a] for seed k's arm a.
type quotaBoundSeries struct {
	series [][]*laneSeries
	index  func(model string) int
}

func (q quotaBoundSeries) peak(k, a int, model string) int {
	return int(q.series[k][a].peak[q.index(model)])
}

func laneOf(r results.Run, model string) results.Lane {
	for _, l := range r.Lanes {
		if l.Model == model {
			return l
		}
	}
	return results.Lane{Model: model}
}

func quotaBoundStudy(sc *scenario.Scenario, runs [][]results.Run, q quotaBoundSeries) string {
	peakOf := q.peak
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	const fl, sch, hold, old, probeOff, pinned, noLower = 0, 1, 2, 3, 4, 5, 6
	n := len(runs)
	var anthropic, openai []string
	for _, m := range sc.ModelConfigs() {
		switch m.Org {
		case "anthropic":
			anthropic = append(anthropic, m.Name)
		case "openai":
			openai = append(openai, m.Name)
		}
	}
	slices.Sort(anthropic)
	lanes := append(slices.Clone(anthropic), "gpt-5.5")
	caps := sc.Policies.FixedLane.Lanes
	v, _ := sc.Variant("quota-scheduler")
	var tpm float64
	for _, o := range v.Scenario.Organisations {
		if o.Name == "anthropic" {
			tpm = o.TPM
		}
	}
	var openaiTPM float64
	for _, o := range sc.Organisations {
		if o.Name == "openai" {
			openaiTPM = o.TPM
		}
	}

	p("# Lanes bound by a quota\n\n")
	p("%s", generatedLine("sim study quota-bound-lanes"))
	p("**Method.** `azure-production` (light-load's 241 models and job stream, with the product's production traffic on gpt-5.5 through the openai organisation) with the anthropic organisation's TPM lowered to %s (the `quota-*` variants), so that five Anthropic lanes share a binding quota and gpt-5.5 shares the openai organisation's %s TPM with production and judge-1. ",
		count(int64(tpm)), count(int64(openaiTPM)))
	p("Four arms on the identical streams of each of seeds 1–%d: fixed-lane (`quota-fixed-lane`), the scheduler (`quota-scheduler`), the scheduler with `job_rate_hold: 5m` (`quota-scheduler-hold`: a raise projected at the highest share of a window one job was seen to use, halved every half-life) and the old signal (`quota-old-signal`: the queue depth only, quota ignored: the runaway the scheduler's quota rules are there to prevent). As\n\n", n)
	p("```\nsim compare --scenario azure-production --variant quota-fixed-lane --variant quota-scheduler \\\n  --variant quota-scheduler-hold --variant quota-old-signal --seeds %d\n```\n\n", n)
	p("does; the peaks are the highest `running` of each lane's `series.csv` rows.\n\n")

	// Per seed, seeds 1-3.
	p("## Peaks and throughput, seeds 1–3\n\n")
	p("Peak running jobs / jobs per hour per lane, and the multipliers over fixed-lane (fixed-lane's caps: ")
	var capList []string
	for _, m := range anthropic {
		capList = append(capList, fmt.Sprintf("%s %d", m, caps[m]))
	}
	p("%s).\n\n", strings.Join(capList, ", "))
	p("| seed | lane | fixed-lane | scheduler | `job_rate_hold: 5m` | old signal | scheduler ÷ fixed | hold ÷ fixed |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
	for k := 0; k < min(3, n); k++ {
		for _, m := range anthropic {
			cell := func(a int) string {
				return fmt.Sprintf("%s / %s", count(int64(peakOf(k, a, m))), count(int64(math.Round(laneOf(runs[k][a], m).ThroughputPerHour))))
			}
			f := laneOf(runs[k][fl], m).ThroughputPerHour
			p("| %d | %s | %s | %s | %s | %s | %.2f× | %.2f× |\n", k+1, m, cell(fl), cell(sch), cell(hold), cell(old),
				results.Ratio(laneOf(runs[k][sch], m).ThroughputPerHour, f), results.Ratio(laneOf(runs[k][hold], m).ThroughputPerHour, f))
		}
	}
	p("\n")

	// Multipliers over seeds.
	stat := func(a int) map[string]results.MultiplierStat {
		per := make([][]results.LaneComparison, n)
		for k := range runs {
			per[k] = results.Compare(runs[k][fl], runs[k][a])
		}
		out := map[string]results.MultiplierStat{}
		for _, s := range results.MultiplierCI(per) {
			out[s.Model] = s
		}
		return out
	}
	schStat, holdStat := stat(sch), stat(hold)
	ci := func(s *results.RatioStat) string {
		m, lo, hi := s.Cells("×")
		return fmt.Sprintf("%s [%s, %s]", m, lo, hi)
	}
	p("## Multipliers over the %d seeds\n\n", n)
	p("Geometric mean of scheduler ÷ fixed-lane per seed and its 95%% interval (docs/reference/metrics.md, Multipliers over seeds), in jobs per hour and in tokens per hour.\n\n")
	p("| lane | scheduler | tokens | `job_rate_hold: 5m` | tokens |\n|---|---:|---:|---:|---:|\n")
	for _, m := range lanes {
		s, h := schStat[m], holdStat[m]
		p("| %s | %s | %s | %s | %s |\n", m, ci(&s.RatioStat), ci(s.Tokens), ci(&h.RatioStat), ci(h.Tokens))
	}
	p("\n")

	// Sums over seeds.
	type sums struct {
		prodFailed, prodFailedMin, prod429, anth429, gpt429 int64
		gwHours                                             float64
		peakLo, peakHi                                      int
	}
	sum := func(a int) sums {
		var s sums
		s.peakLo = math.MaxInt
		for k := range runs {
			r := runs[k][a]
			for _, pr := range r.Production {
				s.prodFailed += pr.Failed
				s.prodFailedMin += pr.FailedMinutes
				s.prod429 += pr.Rejected429
			}
			peak := 0
			for _, m := range anthropic {
				s.anth429 += laneOf(r, m).Rejected429
				peak = max(peak, peakOf(k, a, m))
			}
			s.gpt429 += laneOf(r, "gpt-5.5").Rejected429
			s.gwHours += r.Total.GatewayWaitContainerSeconds / 3600
			s.peakLo, s.peakHi = min(s.peakLo, peak), max(s.peakHi, peak)
		}
		return s
	}
	S := [4]sums{sum(fl), sum(sch), sum(hold), sum(old)}
	p("Summed over the %d seeds:\n\n", n)
	p("| %d seeds | fixed-lane | scheduler | `job_rate_hold: 5m` | old signal |\n|---|---:|---:|---:|---:|\n", n)
	row := func(name string, f func(s sums) string) {
		p("| %s | %s | %s | %s | %s |\n", name, f(S[0]), f(S[1]), f(S[2]), f(S[3]))
	}
	row("production failed calls (minutes with a failure)", func(s sums) string {
		return fmt.Sprintf("%s (%s)", count(s.prodFailed), count(s.prodFailedMin))
	})
	row("production 429s", func(s sums) string { return count(s.prod429) })
	row("Anthropic lanes' 429s", func(s sums) string { return count(s.anth429) })
	row("gpt-5.5's 429s", func(s sums) string { return count(s.gpt429) })
	row("container-hours waiting on the gateway, evaluation lanes", func(s sums) string { return count(int64(math.Round(s.gwHours))) })
	row("highest running count on an Anthropic lane (range over seeds)", func(s sums) string {
		if s.peakLo == s.peakHi {
			return count(int64(s.peakLo))
		}
		return fmt.Sprintf("%s–%s", count(int64(s.peakLo)), count(int64(s.peakHi)))
	})
	p("\n")

	// Blocked share.
	blocked := func(l results.Lane) float64 { return results.Ratio(l.GatewayWaitContainerSeconds, l.ContainerSeconds) }
	type spread struct{ mean, lo, hi float64 }
	share := func(a int, m string) spread {
		s := spread{lo: math.Inf(1), hi: math.Inf(-1)}
		for k := range runs {
			x := blocked(laneOf(runs[k][a], m))
			s.mean += x / float64(n)
			s.lo, s.hi = min(s.lo, x), max(s.hi, x)
		}
		return s
	}
	p("## Running jobs and what the quota admits\n\n")
	p("A job beyond what a quota admits holds its container while its calls wait: queued at the gateway or backing off a 429. So what counts is the share of a lane's container time spent with no call accepted by the provider (`gateway_wait_container_seconds` ÷ `container_seconds`), not the running count on one lane. Mean over the seeds [lowest–highest seed]:\n\n")
	p("| lane | fixed-lane | scheduler | old signal |\n|---|---:|---:|---:|\n")
	allBelow := true
	for _, m := range lanes {
		f, s, o := share(fl, m), share(sch, m), share(old, m)
		if s.hi >= f.lo {
			allBelow = false
		}
		c := func(x spread) string { return fmt.Sprintf("%.1f%% [%.1f–%.1f%%]", 100*x.mean, 100*x.lo, 100*x.hi) }
		p("| %s | %s | %s | %s |\n", m, c(f), c(s), c(o))
	}
	p("\n")

	rng := func(lo, hi float64, f string) string {
		if fmt.Sprintf(f, lo) == fmt.Sprintf(f, hi) {
			return fmt.Sprintf(f, lo)
		}
		return fmt.Sprintf(f+"–"+f, lo, hi)
	}
	{
		useLo, useHi, waitLo, waitHi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for k := range runs {
			ls := q.series[k][sch]
			for _, m := range anthropic {
				i := q.index(m)
				useLo, useHi = min(useLo, float64(ls.useAtPeak[i])), max(useHi, float64(ls.useAtPeak[i]))
				waitLo, waitHi = min(waitLo, float64(ls.waitAtPeak[i])), max(waitHi, float64(ls.waitAtPeak[i]))
			}
		}
		p("At each Anthropic lane's highest running count under the scheduler (every lane and seed) the organisation's fullest window was %s%% full, with %s of that lane's calls queued or in backoff.\n\n", rng(100*useLo, 100*useHi, "%.0f"), rng(waitLo, waitHi, "%.0f"))
		sumRange := func(a int) (mlo, mhi, plo, phi float64) {
			mlo, mhi, plo, phi = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
			for k := range runs {
				ls := q.series[k][a]
				mean := results.Ratio(ls.sumTotal, float64(ls.sums))
				mlo, mhi, plo, phi = min(mlo, mean), max(mhi, mean), min(plo, ls.sumPeak), max(phi, ls.sumPeak)
			}
			return
		}
		capSum := 0
		for _, m := range anthropic {
			capSum += caps[m]
		}
		smlo, smhi, splo, sphi := sumRange(sch)
		fmlo, fmhi, fplo, fphi := sumRange(fl)
		p("Summed over the %d Anthropic lanes after the warm-up, the scheduler runs %s jobs on average (the range over seeds; fixed-lane %s) and at most %s (fixed-lane %s; its caps sum to %d).\n\n",
			len(anthropic), rng(smlo, smhi, "%.0f"), rng(fmlo, fmhi, "%.0f"), rng(splo, sphi, "%.0f"), rng(fplo, fphi, "%.0f"), capSum)
	}

	// Tokens decomposition for gpt-5.5.
	ratioOver := func(models []string) (gm, lo, hi float64) {
		var xs []float64
		for k := range runs {
			var o, nw float64
			for _, m := range models {
				o += laneOf(runs[k][fl], m).TokensPerHour
				nw += laneOf(runs[k][sch], m).TokensPerHour
			}
			xs = append(xs, results.Ratio(nw, o))
		}
		gm, _, _, _ = results.LogRatioCI(xs, 0.95)
		return gm, slices.Min(xs), slices.Max(xs)
	}
	evalOpenAI := slices.DeleteFunc(slices.Clone(openai), func(m string) bool { return false })
	slices.Sort(evalOpenAI)
	g := schStat["gpt-5.5"]
	oa, oaLo, oaHi := ratioOver(evalOpenAI)
	an, anLo, anHi := ratioOver(anthropic)
	p("## gpt-5.5, on the quota it shares with production\n\n")
	p("| measure, scheduler ÷ fixed-lane | geometric mean over the seeds |\n|---|---:|\n")
	p("| gpt-5.5 jobs/h (`multiplier`) | %s |\n", ci(&g.RatioStat))
	p("| gpt-5.5 tokens/h (`token_multiplier`) | %s |\n", ci(g.Tokens))
	p("| openai evaluation tokens/h (%s) | %.2f× (%.2f×–%.2f× per seed) |\n", strings.Join(evalOpenAI, " + "), oa, oaLo, oaHi)
	p("| Anthropic evaluation tokens/h (%d lanes) | %.2f× (%.2f×–%.2f× per seed) |\n\n", len(anthropic), an, anLo, anHi)
	gi := q.index("gpt-5.5")
	over := func(a int, f func(k int) float64) string {
		lo, hi := math.Inf(1), math.Inf(-1)
		for k := range runs {
			x := f(k)
			lo, hi = min(lo, x), max(hi, x)
		}
		return rng(lo, hi, "%.2f")
	}
	overInt := func(a int, f func(k int) float64) string {
		lo, hi := math.Inf(1), math.Inf(-1)
		for k := range runs {
			x := f(k)
			lo, hi = min(lo, x), max(hi, x)
		}
		return rng(lo, hi, "%.0f")
	}
	p("What the lane does, range over the seeds (`series.csv` rows after the warm-up; per completed job from the summary):\n\n")
	p("| gpt-5.5 | fixed-lane | scheduler |\n|---|---:|---:|\n")
	p("| mean use of the fullest openai window (`quota_use`) | %s | %s |\n", over(fl, func(k int) float64 { return q.series[k][fl].meanUse(gi) }), over(sch, func(k int) float64 { return q.series[k][sch].meanUse(gi) }))
	p("| mean calls waiting out a 429 (`gateway_backoff`) | %s | %s |\n", overInt(fl, func(k int) float64 { return q.series[k][fl].meanBackoff(gi) }), overInt(sch, func(k int) float64 { return q.series[k][sch].meanBackoff(gi) }))
	perJob := func(a int, f func(l results.Lane) float64) string {
		return overInt(a, func(k int) float64 {
			l := laneOf(runs[k][a], "gpt-5.5")
			return results.Ratio(f(l), float64(l.Completed))
		})
	}
	ctr := func(l results.Lane) float64 { return l.ContainerSeconds }
	gw := func(l results.Lane) float64 { return l.GatewayWaitContainerSeconds }
	p("| container seconds per completed job | %s | %s |\n", perJob(fl, ctr), perJob(sch, ctr))
	p("| of them waiting at the gateway | %s | %s |\n\n", perJob(fl, gw), perJob(sch, gw))

	// Controls.
	ctl := []struct {
		a    int
		name string
	}{{sch, "the scheduler (default)"}, {probeOff, "`quota_dead_time: 30s` (the quota probe off)"},
		{pinned, "gpt-5.5 pinned at fixed-lane's cap (`min_limit` = `max_limit` = 60)"}, {noLower, "`reject_lower_after: 100000` (no lowering on persistent 429s)"}}
	ctlStat := map[int]results.MultiplierStat{}
	anthBlocked := func(a int) float64 { // the mean over lanes of each lane's mean blocked share
		var x float64
		for _, m := range anthropic {
			x += share(a, m).mean / float64(len(anthropic))
		}
		return x
	}
	var C [7]sums
	C[fl] = S[0]
	for _, c := range ctl {
		ctlStat[c.a] = stat(c.a)["gpt-5.5"]
		C[c.a] = sum(c.a)
	}
	p("## Settings of the scheduler, measured\n\n")
	p("The `quota-scheduler` arm with one setting changed, on the same %d seeds (fixed-lane for reference):\n\n", n)
	p("| arm | gpt-5.5 ÷ fixed-lane | highest running on an Anthropic lane | production failed calls | production 429s | Anthropic lanes' 429s | Anthropic blocked share |\n|---|---:|---:|---:|---:|---:|---:|\n")
	p("| fixed-lane | - | %s | %s | %s | %s | %.1f%% |\n", count(int64(S[0].peakHi)), count(S[0].prodFailed), count(S[0].prod429), count(S[0].anth429), 100*anthBlocked(fl))
	for _, c := range ctl {
		st := ctlStat[c.a]
		p("| %s | %s | %s | %s | %s | %s | %.1f%% |\n", c.name, ci(&st.RatioStat), rng(float64(C[c.a].peakLo), float64(C[c.a].peakHi), "%.0f"),
			count(C[c.a].prodFailed), count(C[c.a].prod429), count(C[c.a].anth429), 100*anthBlocked(c.a))
	}
	p("\nThe blocked share is the mean over the Anthropic lanes of each lane's mean over the seeds (as in the table above); the highest running count the range over seeds.\n\n")

	// Verdicts.
	p("## What the numbers say\n\n")
	var contain, below, tokBelow []string
	for _, m := range anthropic {
		s := schStat[m]
		if s.Low != nil && *s.Low <= 1 && 1 <= *s.High {
			contain = append(contain, m)
		}
		if s.High != nil && *s.High < 1 {
			below = append(below, m)
		}
		if s.Tokens != nil && s.Tokens.High != nil && *s.Tokens.High < 1 {
			tokBelow = append(tokBelow, m)
		}
	}
	p("- **Anthropic lanes.** The scheduler's jobs/h interval contains 1 on %d of %d lanes (%s); below fixed-lane beyond noise: %s. In tokens, below fixed-lane beyond noise: %s.\n",
		len(contain), len(anthropic), listOr(contain, "none"), listOr(below, "none"), listOr(tokBelow, "none"))
	p("- **Production.** Under the scheduler production fails %s calls against fixed-lane's %s (%.0f%%), in %s minutes against %s, with %.0f%% of fixed-lane's 429s; with `job_rate_hold: 5m`, %s failed calls (%.0f%% of fixed-lane's).\n",
		count(S[1].prodFailed), count(S[0].prodFailed), 100*results.Ratio(float64(S[1].prodFailed), float64(S[0].prodFailed)),
		count(S[1].prodFailedMin), count(S[0].prodFailedMin), 100*results.Ratio(float64(S[1].prod429), float64(S[0].prod429)),
		count(S[2].prodFailed), 100*results.Ratio(float64(S[2].prodFailed), float64(S[0].prodFailed)))
	if S[3].peakLo > S[0].peakHi && S[3].anth429 > S[0].anth429 {
		p("- **The old signal still runs away:** %s–%s running on an Anthropic lane against fixed-lane's caps, and %.1f× fixed-lane's Anthropic 429s.\n",
			count(int64(S[3].peakLo)), count(int64(S[3].peakHi)), results.Ratio(float64(S[3].anth429), float64(S[0].anth429)))
	}
	if allBelow {
		p("- **Blocked containers.** On every lane and seed the scheduler's blocked share is below fixed-lane's lowest.\n")
	} else {
		p("- **Blocked containers.** On some lane the scheduler's blocked share on a seed reaches fixed-lane's lowest.\n")
	}
	if g.High != nil && *g.High < 1 {
		p("- **Not met: gpt-5.5** is %s, below fixed-lane beyond noise, in tokens %s. ", ci(&g.RatioStat), ci(g.Tokens))
		p("Fixed-lane keeps the shared window full by running its cap of %d jobs with a standing backlog of calls waiting out 429s (%s 429s over the seeds against the scheduler's %s); the scheduler holds raises on any 429, lowers after three ticks of them and counts the calls in backoff as gateway depth, so it settles lower and leaves part of the window unused. ",
			caps["gpt-5.5"], count(S[0].gpt429), count(S[1].gpt429))
		p("The openai organisation's evaluation tokens are %.2f× fixed-lane's and the Anthropic lanes' %.2f×. Every rule that presses harder on a quota shared with production gives production more 429s; a controller for a quota-bound lane that keeps such a backlog without the runaway is left open.\n", oa, an)
	} else {
		p("- **gpt-5.5** is %s in jobs (%s in tokens): not below fixed-lane beyond noise.\n", ci(&g.RatioStat), ci(g.Tokens))
	}
	if C[probeOff].peakHi > C[sch].peakHi {
		p("- **The quota probe lowers the peaks:** with raises near a quota at the depth signal's pace (`quota_dead_time: 30s`) the highest running count on an Anthropic lane is %s–%s against %s–%s, production fails %s calls against %s and the Anthropic lanes see %s 429s against %s.\n",
			count(int64(C[probeOff].peakLo)), count(int64(C[probeOff].peakHi)), count(int64(C[sch].peakLo)), count(int64(C[sch].peakHi)),
			count(C[probeOff].prodFailed), count(C[sch].prodFailed), count(C[probeOff].anth429), count(C[sch].anth429))
	} else {
		p("- **The quota probe does not lower the peaks here:** with `quota_dead_time: 30s` the highest running count on an Anthropic lane is %s–%s against %s–%s.\n",
			count(int64(C[probeOff].peakLo)), count(int64(C[probeOff].peakHi)), count(int64(C[sch].peakLo)), count(int64(C[sch].peakHi)))
	}
	if st := ctlStat[pinned]; st.Low != nil && *st.Low <= 1 && 1 <= *st.High {
		p("- **Ordering is neutral:** with gpt-5.5's limit pinned at fixed-lane's cap the scheduler's gpt-5.5 is %s of fixed-lane's, an interval containing 1: the shortfall is the concurrency the scheduler's 429 rules settle at, not the order it runs jobs in.\n", ci(&st.RatioStat))
	} else {
		st := ctlStat[pinned]
		p("- **Pinned at fixed-lane's cap** the scheduler's gpt-5.5 is %s of fixed-lane's: the concurrency alone does not close the gap.\n", ci(&st.RatioStat))
	}
	{
		st := ctlStat[noLower]
		p("- **Without lowering on persistent 429s** gpt-5.5 is %s, with the Anthropic lanes' blocked share at %.1f%% (fixed-lane %.1f%%, the default %.1f%%) and production's 429s at %s (fixed-lane %s, the default %s)",
			ci(&st.RatioStat), 100*anthBlocked(noLower), 100*anthBlocked(fl), 100*anthBlocked(sch), count(C[noLower].prod429), count(S[0].prod429), count(S[1].prod429))
		if st.Low != nil && *st.Low <= 1 && anthBlocked(noLower) > anthBlocked(sch) && C[noLower].prod429 > S[1].prod429 {
			p(": parity on gpt-5.5 comes with more containers blocked and more 429s for production.\n")
		} else {
			p(".\n")
		}
	}
	p("\nThe rules behind the scheduler's numbers, each with the tests that check it: near a quota a raise probes at the quota signal's pace (`policies.scheduler.quota_dead_time`, default 2 min: `TestQuotaProbeSlowsRaisesNearAQuota`, `TestQuotaProbeLowersPeaks`); a raise is held while the windows have no room for it (`roomToRaise` in `policies/signals.go`: `TestRaiseNeedsQuotaHeadroom`, `TestNoHeadroomHoldsEveryController`); each lane keeps up with fixed-lane on a shared organisation (`TestSharedOrgLanesKeepUpWithFixedLane`) and its running jobs do not outgrow the quota (`TestRunningJobsDoNotOutgrowTheQuota`, from the event log).\n")
	return b.String()
}
