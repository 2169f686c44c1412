package policies

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// bakeResults are a bake-off run's rows, by case name (bakeCase.name), in
// table order: Controllers, then the case's controls.
type bakeResults map[string][]bakeRow

// row is the row of the named controller (or control) in a case.
func (res bakeResults) row(caseName, name string) bakeRow {
	for _, r := range res[caseName] {
		if r.name == name {
			return r
		}
	}
	panic(fmt.Sprintf("bake-off case %q has no row %q", caseName, name))
}

// kinds are the rows of a case's controllers (no controls) that keep.
func (res bakeResults) kinds(caseName string, keep func(bakeRow) bool) []bakeRow {
	var out []bakeRow
	for _, r := range res[caseName] {
		if slices.Contains(Controllers, ControllerKind(r.name)) && keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// depthKinds are the controllers that steer by the gateway depth alone
// (step, the reference, is named on its own in the prose).
var depthKinds = []ControllerKind{ControllerSearch, ControllerAIMD, ControllerPI, ControllerBands, ControllerDamped, ControllerSlowStart}

func isDepth(r bakeRow) bool { return slices.Contains(depthKinds, ControllerKind(r.name)) }

// kindName is a controller as the prose writes it: the default in code.
func kindName(name string) string {
	if name == string(ControllerSlowStart) {
		return "`slowstart`"
	}
	return name
}

// names lists the rows' controllers, "a, b and c"; last is put before the
// final name (" and ", or " and\n" to break the line there).
func names(rs []bakeRow, last string) string {
	var ns []string
	for _, r := range rs {
		ns = append(ns, kindName(r.name))
	}
	switch len(ns) {
	case 0:
		return "none"
	case 1:
		return ns[0]
	}
	return strings.Join(ns[:len(ns)-1], ", ") + last + ns[len(ns)-1]
}

// verb is "s" for one subject, "" for several (English agreement).
func verb(rs []bakeRow, one, many string) string {
	if len(rs) == 1 {
		return one
	}
	return many
}

// span formats the range of v over rs with format f: "lo–hi", or one
// value when both print alike.
func span(rs []bakeRow, f string, v func(bakeRow) float64) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rs {
		lo, hi = min(lo, v(r)), max(hi, v(r))
	}
	a, b := fmt.Sprintf(f, lo), fmt.Sprintf(f, hi)
	if a == b {
		return a
	}
	return a + "–" + b
}

// nearly reports whether v is within frac of want.
func nearly(v, want, frac float64) bool { return math.Abs(v/want-1) <= frac }

// busyIn is "in N ticks", or "never" busy.
func busyIn(m bakeMetrics) string {
	if m.toBusy < 0 {
		return "never 95% busy"
	}
	return fmt.Sprintf("95%% busy in %d ticks", m.toBusy)
}

// thousands writes n with a comma between thousands (1,000).
func thousands(n int) string {
	if n < 1000 {
		return fmt.Sprint(n)
	}
	return thousands(n/1000) + fmt.Sprintf(",%03d", n%1000)
}

// bakeoffStudy writes docs/studies/bakeoff.md whole from a run's rows: the
// setup from the harness's constants, each case's prose with its numbers
// and verdicts computed from the rows, and each case's table.
func bakeoffStudy(cases []bakeCase, res bakeResults) string {
	var b strings.Builder
	tables := map[string]string{}
	for _, bc := range cases {
		tables[bc.name] = bakeTable(bc.title, bc.extraCols, res[bc.name]) + "\n"
	}
	b.WriteString(bakeIntro())
	for _, s := range []struct{ head, caseName, prose string }{
		{"### 1. Sustained rate limiting", "1 quota", proseQuota(res)},
		{"### 2. One key shared by two evaluations", "2a shared key", proseShared(res)},
		{"", "2b shared key, B joins", proseJoin(res)},
		{"### 3. Steady timeouts, no latency change", "3 timeouts", proseTimeouts(res)},
		{"### 4. Failures averaged in at ~0 latency", "4 fast fail", proseFastFail(res)},
		{"### 5. Sustained modest overload", "5 modest overload", proseModest(res)},
		{"### 6. A latency baseline learned under load", "6 loaded start", proseLoaded(res)},
		{"### 7. Slowdown, long jobs, stale metrics", "7a slowdown", proseSlowdown(res)},
		{"", "7b long jobs", proseLongJobs(res)},
		{"", "7c stale", proseStale(res)},
	} {
		if s.head != "" {
			b.WriteString(s.head + "\n\n")
		}
		b.WriteString(s.prose + "\n\n" + tables[s.caseName])
	}
	return b.String()
}

func bakeIntro() string {
	fr := baseFluid
	return fmt.Sprintf(`## Controller bake-off

`+"`policies/bakeoff_test.go`"+` runs every controller (`+"`policies.Controllers`"+`)
through the failures the field has reported of adaptive concurrency limits,
on the fluid provider of `+"`policies/rivals_test.go`"+`, and checks what was
reported of the rival each report was against and what holds, or is a known
limitation, for the default (`+"`slowstart`"+`). This whole file, tables and
prose, is written by that harness from the same runs (the prose by
`+"`policies/bakeoff_study_test.go`"+`): every number in it is computed from
them and every verdict is chosen from the numbers. `+"`TestBakeoff`"+` fails
when any byte of the file differs from what the run writes;

    go test ./policies -run TestBakeoff -args -bakeoff.update

rewrites it (`+"`-v`"+` also logs every table). The run takes about 1 s and is
deterministic.

**Setup.** Scripted time, %.0f s ticks, one model with an endless backlog. The
provider serves %d calls at once; each running job keeps %d calls in flight
and lasts %d ticks; a call takes %.0f s plus its wait in the gateway queue
(Little's law). Controller config: target depth T = %d, multiplicative
×%.2f, initial limit %d, max_limit %d, dead time and stale_after %d ticks.
The limit that holds the depth at T is (capacity + T) / %d = %.0f jobs
("settled"). The controllers read what the gateway reports: the queue
depth, the mean call latency and the 429 count (`+"`LatencySignals`"+`) and the
quota signal (`+"`QuotaState`"+`), so the scheduler's quota rule (no raise on a
tick with 429s, a step down after 3 such ticks) applies to every controller
but `+"`inspect`"+`, which reads the 429s itself. Calls lost otherwise (timed out,
failed fast) are counted by the harness but reported to no controller: they
are not 429s, and no gateway signal here carries them.

`, tickHours*3600, fr.capacity, fr.callsPerJob, fr.jobTicks, fr.service, bakeTarget,
		bakeFactor, DefaultInitialLimit, bakeMax, bakeTheta, fr.callsPerJob, fr.settled()) + bakeColumns
}

const bakeColumns = `**Columns** (from the harness's arrays, not the controllers' state).
*Ticks to 95% busy*: from the case's event (the start, a recovery, a quota's
lift, B's join) to the first tick the provider served ≥ 95% of what it
could (its capacity, or the quota). *Reversals/h*: changes of direction of
the limit (in case 2 of both limits, summed) over the second half of the run
after the event, the *window*. *Mean |d − T|*: the gateway depth's distance
from target over the window. *429 rate*: 429s ÷ tries (each call in flight
is one try per tick), whole run. *Lost rate*: calls timed out or failed fast
÷ tries, whole run. *Headroom*: served ÷ what the provider could serve, over
the window. *Gateway-wait job-h*: Σ depth ÷ 2 × tick, the job-hours of
containers whose calls wait at the gateway, whole run. *Peak ÷ settled*: the
highest limit from the event on (in case 2 the sum of the two) ÷ the case's
settled limit. *Limit at end*: at the last tick.

`

func proseQuota(res bakeResults) string {
	const c = "1 quota"
	fr := baseFluid
	quotaJobs := float64(fr.capacity/2) / float64(fr.callsPerJob)
	lift := func(r bakeRow) float64 { return r.x["limit at lift ÷ quota's"] }
	frozen := res.kinds(c, func(r bakeRow) bool { return r.x["cuts under the quota"] < 2 })
	runaway := res.kinds(c, func(r bakeRow) bool { return lift(r) > 1.5 })
	follow := res.kinds(c, func(r bakeRow) bool { return r.x["cuts under the quota"] >= 2 && within(lift(r), 0.7, 1.5) })
	var verdict string
	if len(frozen) == 0 && len(runaway) == 0 && len(follow) == len(Controllers) {
		verdict = fmt.Sprintf("Here no controller freezes or\nruns away: each follows the quota (limit at the lift %s × the\nquota's %.0f jobs)",
			span(follow, "%.2f", lift), quotaJobs)
	} else {
		var parts []string
		if len(frozen) > 0 {
			parts = append(parts, names(frozen, " and ")+" freeze"+verb(frozen, "s", ""))
		}
		if len(runaway) > 0 {
			parts = append(parts, names(runaway, " and ")+" run"+verb(runaway, "s", "")+" away")
		}
		if len(parts) == 0 {
			parts = append(parts, "no controller freezes or runs away")
		}
		verdict = fmt.Sprintf("Here %s; %s follow%s the quota (limit at the lift %s × the quota's %.0f jobs)",
			strings.Join(parts, " and "), names(follow, " and "), verb(follow, "s", ""), span(follow, "%.2f", lift), quotaJobs)
	}
	raisers := res.kinds(c, func(r bakeRow) bool { return r.x["raises on a 429 tick"] > 0 })
	raise := "none raises on a tick with 429s"
	if len(raisers) > 0 {
		raise = names(raisers, " and ") + " raise" + verb(raisers, "s", "") + " on a tick with 429s"
	}
	insp := res.row(c, string(ControllerInspect))
	ss := res.row(c, string(ControllerSlowStart))
	back := fmt.Sprintf("back at %d", ss.m.end)
	if !nearly(float64(ss.m.end), fr.settled(), 0.05) {
		back = fmt.Sprintf("ends at %d, not the settled %.0f", ss.m.end, fr.settled())
	}
	// the slowest two others, for scale
	others := res.kinds(c, func(r bakeRow) bool { return r.name != string(ControllerSlowStart) })
	slices.SortStableFunc(others, func(a, b bakeRow) int { return b.m.toBusy - a.m.toBusy })
	var slow []string
	for _, r := range others[:min(2, len(others))] {
		slow = append(slow, fmt.Sprintf("%s %d", kindName(r.name), r.m.toBusy))
	}
	ctl := res.row(c, "slowstart, ignore_quota (control)")
	climb := "climbs to\nmax_limit"
	if l := lift(ctl) * quotaJobs; math.Round(l) != bakeMax {
		climb = fmt.Sprintf("climbs to\n%.0f", l)
	}
	return fmt.Sprintf(`A quota admitting %d calls at once (half the capacity) binds for %d ticks
after a %d-tick ramp, then lifts; tries beyond it get a 429 and back off
outside the gateway queue, so the depth reads 0 while 429s arrive on every
tick. The provider also answers 429 beyond a queue of %d throughout. Field
report: inspect_ai #5137 (fixed by #5138), a limit frozen after one cut
because every retry pushed its cooldown on. %s and %s; inspect's rule, which
debounces from the cut only, cuts %s. After the lift `+"`slowstart`"+` is
%s and %s (%s). The control,
`+"`slowstart`"+` with `+"`ignore_quota`"+`, reads the empty queue and %s (%.0f × the quota's limit, %.0f%% of tries refused).`,
		fr.capacity/2, q1Spell, q1Ramp, bakeThrottle, verdict, raise, times(insp.x["cuts under the quota"]),
		busyIn(ss.m), back, strings.Join(slow, ", "), climb, lift(ctl), 100*ctl.m.rate429)
}

func proseShared(res bakeResults) string {
	const c = "2a shared key"
	fr := baseFluid
	all := res.kinds(c, func(bakeRow) bool { return true })
	split := "the two runs are\nidentical, so the split is 50/50 by construction"
	if s := span(all, "%.2f", func(r bakeRow) float64 { return r.x["share of A"] }); s != "0.50" {
		split = "the share of A is " + s
	}
	total := func(r bakeRow) float64 { return r.x["total running ÷ settled"] }
	at1 := res.kinds(c, func(r bakeRow) bool { return fmt.Sprintf("%.2f", total(r)) == "1.00" })
	off := res.kinds(c, func(r bakeRow) bool { return fmt.Sprintf("%.2f", total(r)) != "1.00" })
	slices.SortStableFunc(off, func(a, b bakeRow) int { return strings.Compare(a.name, b.name) })
	who := names(at1, " and ")
	if slices.EqualFunc(at1, res.kinds(c, isDepth), func(a, b bakeRow) bool { return a.name == b.name }) {
		who = "the depth controllers"
	}
	settles := fmt.Sprintf("1.00 × %.0f for %s", fr.settled(), who)
	if len(off) > 0 {
		hi := 0.0 // the highest peak of the group
		for _, r := range off {
			hi = max(hi, r.x["peak total ÷ settled"])
		}
		settles += fmt.Sprintf(", %s × for %s (peaks up to %.2f ×)", span(off, "%.2f", total), names(off, " and\n"), hi)
	}
	return fmt.Sprintf(`Two schedulers, each with its own controller, feed one provider: capacity,
depth, latency and the 429s beyond a queue of %d are shared, and each
scheduler is told of the 429s in proportion to its calls. One controller
alone settles at %.0f jobs. Field report: inspect_ai #4411 (the thread was
not retrieved while writing this). Started together (2a) %s; the total settles at
%s.`, bakeThrottle, fr.settled(), split, settles)
}

// times is a count of events: "once", "N times".
func times(n float64) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%.0f times", n)
}

// pct is a share as whole percent.
func pct(v float64) int { return int(math.Round(100 * v)) }

func proseJoin(res bakeResults) string {
	const c = "2b shared key, B joins"
	fr := baseFluid
	all := res.kinds(c, func(bakeRow) bool { return true })
	shareA := func(r bakeRow) float64 { return r.x["share of A"] }
	byShare := slices.Clone(all)
	slices.SortStableFunc(byShare, func(a, b bakeRow) int { return cmp.Compare(shareA(a), shareA(b)) })
	fairest := byShare[0]
	var near []string
	var keep []bakeRow
	for _, r := range all {
		if r.name != fairest.name && shareA(r) >= 0.9 {
			keep = append(keep, r)
		}
	}
	for _, r := range byShare[1:] {
		if shareA(r) < 0.9 {
			near = append(near, fmt.Sprintf("%s %d/%d", kindName(r.name), pct(shareA(r)), 100-pct(shareA(r))))
		}
	}
	how := map[string]string{string(ControllerAIMD): " (multiplicative decrease)"}[fairest.name]
	fair := fmt.Sprintf("only %s%s moves towards\na fair split, to %d/%d by the end", kindName(fairest.name), how,
		pct(shareA(fairest)), 100-pct(shareA(fairest)))
	if len(near) > 0 {
		fair += " (" + strings.Join(near, ", ") + ")"
	}
	if len(keep) > 0 {
		fair += fmt.Sprintf("; A keeps\n%s%% with %s", span(keep, "%.0f", func(r bakeRow) float64 { return 100 * shareA(r) }), names(keep, " and "))
	}
	ss := res.row(c, string(ControllerSlowStart))
	limit := fmt.Sprintf("`slowstart` splits the key (A keeps %d%%): the known limitation of two integral controllers on one key is gone.", pct(shareA(ss)))
	if shareA(ss) > 0.65 {
		limit = `**Known limitation of ` + "`slowstart`" + `**: the two
integral controllers read one depth and move their limits by the same number
of jobs, so the gap at B's start stays. Within one scheduler this does not
arise (admission shares a model's limit across projects); it needs two
schedulers on one key.`
	}
	return fmt.Sprintf(`When B joins at tick %d, after A has settled (2b), every total stays
within %s × %.0f, but %s. %s`, bakeJoin, span(all, "%.2f", func(r bakeRow) float64 { return r.x["total running ÷ settled"] }),
		fr.settled(), fair, limit)
}

func proseTimeouts(res bakeResults) string {
	const c = "3 timeouts"
	fr := baseFluid
	right := float64(fr.capacity) / float64(fr.callsPerJob)
	tell := "No controller here can\ntell: the depth reads 0 and the latency is flat."
	if seen := res.kinds(c, func(r bakeRow) bool { return r.m.peak < 2 }); len(seen) > 0 {
		tell = fmt.Sprintf("Only %s stop%s below twice the right limit.", names(seen, " and "), verb(seen, "s", ""))
	}
	g := res.row(c, string(ControllerGradient))
	grad := fmt.Sprintf("gradient climbs as reported\n(%.1f × the right limit of %.0f jobs by tick %d, still rising)", g.m.peak, right, lossTicks)
	if g.m.growth <= 1 || g.m.peak < 5 {
		grad = fmt.Sprintf("gradient stops at %.1f × the right limit of %.0f jobs by tick %d, unlike the report", g.m.peak, right, lossTicks)
	}
	maxed := res.kinds(c, func(r bakeRow) bool { return r.m.end == bakeMax })
	var others []bakeRow
	ssMaxed := false
	for _, r := range maxed {
		if r.name == string(ControllerSlowStart) {
			ssMaxed = true
		} else {
			others = append(others, r)
		}
	}
	var reach string
	switch {
	case ssMaxed && len(others) > 0:
		reach = strings.Replace(names(others, ", "), ", ", ",\n", 1) + " and **`slowstart` reach max_limit (a known\nlimitation)**"
	case ssMaxed:
		reach = "**`slowstart` reaches max_limit (a known limitation)**"
	case len(others) > 0:
		reach = names(others, " and ") + " reach max_limit; `slowstart` does not"
	default:
		reach = "no controller reaches max_limit"
	}
	if len(maxed) > 0 {
		lost := 0.0
		for _, r := range maxed {
			lost += r.m.lostRate / float64(len(maxed))
		}
		reach += fmt.Sprintf(", with ~%d%% of the calls timing out", pct(lost))
	}
	climbing := res.kinds(c, func(r bakeRow) bool {
		return r.m.end != bakeMax && r.name != string(ControllerGradient) && r.m.growth > 1
	})
	climb := ""
	if len(climbing) > 0 {
		climb = fmt.Sprintf("; %s %s still\nclimbing", names(climbing, " and "), verb(climbing, "is", "are"))
	}
	return fmt.Sprintf(`Calls beyond the capacity time out: not queued, no 429, and the reported
latency stays at %.0f s. Field report: Netflix concurrency-limits #137,
Gradient2 growing to its maximum on a flat latency. %s %s; %s%s. The harness counts the timeouts (lost rate) but does not turn them
into 429s: a timeout is not one, and a fix needs a gateway signal for them,
not a different controller rule.`, fr.service, tell, grad, reach, climb)
}

func proseFastFail(res bakeResults) string {
	const c = "4 fast fail"
	fr := baseFluid
	unsettled := res.kinds(c, func(r bakeRow) bool {
		return isDepth(r) && (r.m.lostRate > 0 || !nearly(float64(r.m.end), fr.settled(), 0.05))
	})
	ss := res.row(c, string(ControllerSlowStart))
	lost := "nothing lost"
	if ss.m.lostRate > 0 {
		lost = fmt.Sprintf("%.1f%% lost", 100*ss.m.lostRate)
	}
	depth := fmt.Sprintf("The depth\ncontrollers see the queue of %d before any call fails and settle\n(`slowstart` at %d, %s).", fastFailAt, ss.m.end, lost)
	if len(unsettled) > 0 {
		depth = fmt.Sprintf("Of the depth controllers %s do%s not settle (`slowstart` at %d, %s).", names(unsettled, " and "),
			verb(unsettled, "es", ""), ss.m.end, lost)
	}
	g := res.row(c, string(ControllerGradient))
	runs := func(r bakeRow) bool { return r.m.peak >= 5 && r.m.growth > 1 }
	grad := fmt.Sprintf("gradient runs away (%.0f × settled by tick\n%d, %d%% of calls lost)", g.m.peak, lossTicks, pct(g.m.lostRate))
	if !runs(g) {
		grad = fmt.Sprintf("gradient holds (%.2f × settled at most, %d%% of calls lost)", g.m.peak, pct(g.m.lostRate))
	}
	falls := "falls to"
	if g.m.latRatio >= 1 {
		falls = "stays at"
	}
	insp := res.row(c, string(ControllerInspect))
	inspect := "goes to max_limit"
	if insp.m.end != bakeMax {
		inspect = fmt.Sprintf("ends at %d", insp.m.end)
	}
	ctl := res.row(c, "gradient, failures kept out of the mean (control)")
	control := "gradient runs away just the same, because the\ncapped queue alone keeps the latency at"
	skew := "The skew is real but not needed for the runaway here."
	if !runs(ctl) || fmt.Sprintf("%.1f", ctl.m.peak) != fmt.Sprintf("%.1f", g.m.peak) {
		control = fmt.Sprintf("gradient reaches %.2f × settled (%.2f with the failures in), with the latency at", ctl.m.peak, g.m.peak)
		skew = "The skew changes the runaway here."
	}
	under := "under"
	if ctl.m.latRatio >= gradTolerance {
		under = "over"
	}
	return fmt.Sprintf(`Calls beyond a queue of %d fail at once (not a 429) and enter the reported
mean latency at ~0 s. Field report: concurrency-limits #176. %s %s while the mean it reads %s %.2f × the no-load
latency; inspect, hearing no 429, %s. The control row keeps
the failures out of the mean: %s %.1f × no-load, %s its tolerance
of %.1f. %s`, fastFailAt, depth, grad, falls, g.m.latRatio, inspect, control, ctl.m.latRatio, under, gradTolerance, skew)
}

func proseModest(res bakeResults) string {
	const c = "5 modest overload"
	settled := float64(modestCapacity+bakeTarget) / float64(baseFluid.callsPerJob)
	quiet := "no 429s and no losses"
	if bad := res.kinds(c, func(r bakeRow) bool { return r.m.rate429 > 0 || r.m.lostRate > 0 }); len(bad) > 0 {
		quiet = fmt.Sprintf("429s or losses for %s", names(bad, " and "))
	}
	g := res.row(c, string(ControllerGradient))
	bounded := "its limit is bounded (no growth\nover the last quarter)"
	if fmt.Sprintf("%.2f", g.m.growth) != "1.00" {
		bounded = fmt.Sprintf("its limit grows %.2f × over the last quarter", g.m.growth)
	}
	ss := res.row(c, string(ControllerSlowStart))
	settles := fmt.Sprintf("settles at %d", ss.m.end)
	if !nearly(float64(ss.m.end), settled, 0.05) {
		settles = fmt.Sprintf("ends at %d, not the settled %.0f", ss.m.end, settled)
	}
	aimd := res.row(c, string(ControllerAIMD))
	insp := res.row(c, string(ControllerInspect))
	inspect := "goes to max_limit"
	if insp.m.end != modestMax {
		inspect = fmt.Sprintf("ends at %d", insp.m.end)
	}
	aimdBusy := "never reaches 95% busy"
	if aimd.m.toBusy >= 0 {
		aimdBusy = fmt.Sprintf("takes %d ticks", aimd.m.toBusy)
	}
	return fmt.Sprintf(`A larger provider (%s calls at once; settled %.0f jobs, max_limit %d),
%d ticks, %s. Field report: concurrency-limits #134,
Gradient2's queue term growing the limit without bound under modest overload
as its baseline learns the loaded latency. This gradient's baseline learns
only from readings within 10%% of itself, and %s, but it only lowers once the latency passes %.1f × the
no-load latency: it holds ~%.0f calls queued, %.0f gateway-wait job-hours
against %.0f for `+"`slowstart`"+`, which is %s and %s.
aimd's linear ramp %s; inspect (no 429s) %s.`,
		thousands(modestCapacity), settled, modestMax, modestTicks, quiet, bounded, gradTolerance,
		10*math.Round(g.m.meanDepth/10), g.m.waitJobH, ss.m.waitJobH, busyIn(ss.m), settles, aimdBusy, inspect)
}

func proseLoaded(res bakeResults) string {
	const c = "6 loaded start"
	fr := baseFluid
	init := int(2 * fr.settled())
	queued := fr.callsPerJob*init - fr.capacity
	l0 := 1 + float64(queued)/float64(fr.capacity)
	g := res.row(c, string(ControllerGradient))
	keeps := "gradient takes the loaded\nreading as its baseline and never loses it (it learns only near itself and\ndecays only when over twice the newest reading)"
	if g.m.meanDepth < 0.95*float64(fr.capacity)*(gradTolerance*l0-1) {
		keeps = "gradient does not keep the loaded reading as its baseline"
	}
	depth := res.kinds(c, isDepth)
	hi := 0.0
	for _, r := range depth {
		hi = max(hi, r.m.waitJobH)
	}
	return fmt.Sprintf(`A restart under load: %d jobs (2 × settled) already run, at an initial
limit of %d, so the first reading has %d calls queued and a latency of
%.2f × no-load. Field reports: Envoy #11579 (a minimum-latency baseline that
ratchets up under sustained load) and #8337. %s: it holds ~%.0f calls queued
(%.1f × the no-load latency) for the whole run, %.0f gateway-wait job-hours
against ≤ %.1f for the depth controllers, which have no baseline and end at
%s. Peak ÷ settled here includes the initial limit (%.1f). #8337's other
half, a minimum-latency probe that pins concurrency to measure, has no
counterpart: no controller here pins its limit to measure.`,
		init, init, queued, l0, keeps, g.m.meanDepth, g.m.latRatio, g.m.waitJobH, hi,
		span(depth, "%.0f", func(r bakeRow) float64 { return float64(r.m.end) }), float64(init)/fr.settled())
}

func proseSlowdown(res bakeResults) string {
	const c = "7a slowdown"
	fr := baseFluid
	half := float64(fr.capacity/2+bakeTarget) / float64(fr.callsPerJob)
	during := func(r bakeRow) float64 { return r.x["limit while halved ÷ its settled"] }
	follow := res.kinds(c, func(r bakeRow) bool {
		return r.name != string(ControllerStep) && nearly(during(r), 1, 0.05) && nearly(float64(r.m.end), fr.settled(), 0.05)
	})
	ss := res.row(c, string(ControllerSlowStart))
	st := res.row(c, string(ControllerStep))
	cycles := "cycles"
	if st.m.revPerH < 30 {
		cycles = "does not cycle"
	}
	return fmt.Sprintf(`7a: capacity halved for %d ticks, then restored (429s beyond a queue of
%d). %s follow (limit while
halved %s × its settled %.0f jobs) and come back; `+"`slowstart`"+` is %s after the
recovery. step, the negative control, %s (%.0f reversals/h).`,
		slowTicks, bakeThrottle, names(follow, " and "), span(follow, "%.2f", during), half, strings.Replace(busyIn(ss.m), "in ", "", 1), cycles, st.m.revPerH)
}

func proseLongJobs(res bakeResults) string {
	const c = "7b long jobs"
	fr := baseFluid
	moved := res.kinds(c, func(r bakeRow) bool {
		return isDepth(r) && (r.m.peak > 1.1 || !nearly(float64(r.m.end), fr.settled(), 0.05))
	})
	off := "no depth controller moves off it"
	if len(moved) > 0 {
		off = fmt.Sprintf("%s move%s off it", names(moved, " and "), verb(moved, "s", ""))
	}
	saw := res.kinds(c, func(r bakeRow) bool {
		return (r.name == string(ControllerGradient) || r.name == string(ControllerInspect)) && r.m.revPerH > 4
	})
	sawtooth := ""
	if len(saw) > 0 {
		sawtooth = fmt.Sprintf("; %s keep%s their sawtooth", names(saw, " and\n"), verb(saw, "s", ""))
	}
	return fmt.Sprintf(`7b: jobs %d × as long for %d ticks. The settled limit depends on calls per
job, not on length, and %s%s.`, longFactor, longTicks, off, sawtooth)
}

func proseStale(res bakeResults) string {
	const c = "7c stale"
	fr := baseFluid
	half := float64(fr.capacity/2+bakeTarget) / float64(fr.callsPerJob)
	raisers := res.kinds(c, func(r bakeRow) bool { return r.x["raises while stale"] > 0 })
	raise := "No controller\nraises on a frozen reading"
	if len(raisers) > 0 {
		raise = fmt.Sprintf("%s raise%s on a frozen reading", names(raisers, " and "), verb(raisers, "s", ""))
	}
	ss := res.row(c, string(ControllerSlowStart))
	before, after := ss.x["limit before the spell"], ss.x["limit at the spell's end"]
	lowers := fmt.Sprintf("the quota rule lowers on the 429s during the\nspell (`slowstart` %.0f → %.0f)", before, after)
	if after >= before {
		lowers = fmt.Sprintf("`slowstart` does not lower during the spell (%.0f → %.0f)", before, after)
	}
	settles := fmt.Sprintf("settles at %d afterwards", ss.m.end)
	if !nearly(float64(ss.m.end), half, 0.05) || ss.m.absErr > 1 || ss.m.revPerH > 4 {
		settles = fmt.Sprintf("ends at %d, not settled at %.0f", ss.m.end, half)
	}
	return fmt.Sprintf(`7c: the depth and latency readings freeze for %d ticks while the capacity
halves (and stays halved); the 429 count does not freeze. %s; %s, and `+"`slowstart`"+` %s.`, staleTicks, raise, lowers, settles)
}
