package lab

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

// peakRows keeps each model's highest running count of a run's series.
type peakRows struct{ peak []int32 }

func (p *peakRows) SeriesRow(r results.SeriesRow) {
	if int(r.Model) < len(p.peak) {
		p.peak[r.Model] = max(p.peak[r.Model], r.Running)
	}
}
func (p *peakRows) BatchRow(results.BatchProgressRow) {}

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
	catalogue := sc.Catalogue()
	peaks := make([][]*peakRows, QuotaBoundSeeds)
	for k := range peaks {
		peaks[k] = make([]*peakRows, len(arms))
		for a := range arms {
			peaks[k][a] = &peakRows{peak: make([]int32, len(catalogue))}
		}
	}
	runs, err := runArmsRows(sc, arms, studySeeds(1, QuotaBoundSeeds), func(k, a int) results.RowSink { return peaks[k][a] })
	if err != nil {
		return "", err
	}
	peakOf := func(k, a int, model string) int {
		return int(peaks[k][a].peak[slices.Index(catalogue, model)])
	}
	return quotaBoundStudy(sc, runs, peakOf), nil
}

func laneOf(r results.Run, model string) results.Lane {
	for _, l := range r.Lanes {
		if l.Model == model {
			return l
		}
	}
	return results.Lane{Model: model}
}

func quotaBoundStudy(sc *scenario.Scenario, runs [][]results.Run, peakOf func(k, a int, model string) int) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	const fl, sch, hold, old = 0, 1, 2, 3
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
	p("\nThe rules behind the scheduler's numbers, each with the tests that check it: near a quota a raise probes at the quota signal's pace (`policies.scheduler.quota_dead_time`, default 2 min: `TestQuotaProbeSlowsRaisesNearAQuota`, `TestQuotaProbeLowersPeaks`); a raise is held while the windows have no room for it (`roomToRaise` in `policies/signals.go`: `TestRaiseNeedsQuotaHeadroom`, `TestNoHeadroomHoldsEveryController`); each lane keeps up with fixed-lane on a shared organisation (`TestSharedOrgLanesKeepUpWithFixedLane`) and its running jobs do not outgrow the quota (`TestRunningJobsDoNotOutgrowTheQuota`, from the event log).\n")
	return b.String()
}
