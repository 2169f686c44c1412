package policies

import (
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// The controller bake-off: every controller of Controllers on the fluid
// provider of rivals_test.go, against the failures the field has reported
// of adaptive concurrency limits. Each case is a scripted run of 10 s ticks.
// The metrics are computed from the harness's own arrays (what the provider
// served, queued, refused and lost, and the limits in force), never from a
// controller's internals, and are logged as one markdown table per case.
// docs/studies/bakeoff.md is written whole from the same rows, its prose's
// numbers and verdicts included (bakeoffStudy, bakeoff_study_test.go); it
// must be byte for byte this run's (checkBakeoffDoc), -bakeoff.update
// rewrites it and -bakeoff.out FILE writes the tables alone to FILE:
//
//	go test ./policies -run TestBakeoff -args -bakeoff.update
//
// The provider reports what the gateway reports: the depth and the latency
// (LatencySignals) and the 429s, both as a count (LatencySignals) and as the
// quota signal (QuotaState). Calls lost otherwise (timed out, failed fast)
// are counted by the harness but reported to no controller: they are not
// 429s, and no gateway signal here carries them.
//
// The assertions check what the field reported of the rival it was reported
// against, and what holds for the default controller (slowstart); where the
// default genuinely fails, the failure is asserted as a known limitation,
// so that the table and the test change together if it is ever fixed.

var (
	bakeoffOut    = flag.String("bakeoff.out", "", "write the controller bake-off tables (markdown) to this file")
	bakeoffUpdate = flag.Bool("bakeoff.update", false, "rewrite docs/studies/bakeoff.md (tables and prose) from this run")
)

// bakeoffDoc is the study TestBakeoff writes and checks.
const bakeoffDoc = "../docs/studies/bakeoff.md"

const (
	bakeTarget = 8    // the harness's target depth (newFluidLoop)
	bakeMax    = 2000 // the harness's max_limit (newFluidLoop)
	bakeTheta  = 3    // the default dead time, in ticks (slowstart)
	bakeFactor = 1.25 // the harness's factor (newFluidLoop)
	tickHours  = 10.0 / 3600
)

// bakeTrace is what the metrics read: per tick the limit in force after
// Decide, the running jobs, and the provider's answer read at that tick
// (over the tick before).
type bakeTrace struct {
	limits, running []int
	outs            []fluidOut
	callsPerJob     int
	service         float64
}

func traceOf(l *fluidLoop) bakeTrace {
	return bakeTrace{limits: l.limits, running: l.running, outs: l.outs, callsPerJob: l.callsPerJob, service: l.service}
}

// bakeSpan is what a case measures: ticks to busy and the peak from event
// (a start, a recovery, the lift of a quota), peakFrom if later; the window
// is the second half of the run after event; settled is the limit the case
// should settle at ((capacity + T) / callsPerJob or the case's own), NaN
// where none exists.
type bakeSpan struct {
	event, peakFrom int
	settled         float64
}

// bakeMetrics are the columns every table has, and a few the checks read.
type bakeMetrics struct {
	toBusy   int     // ticks from the event to the provider ≥ 95% busy; -1: never
	revPerH  float64 // reversals of the limit per hour over the window
	absErr   float64 // mean |depth − T| over the window
	rate429  float64 // 429s ÷ tries, whole run
	lostRate float64 // calls lost (timed out, failed fast) ÷ tries, whole run
	headroom float64 // served ÷ what the provider would serve, over the window
	waitJobH float64 // Σ depth ÷ callsPerJob × tick, in job-hours, whole run
	peak     float64 // peak limit from peakFrom on ÷ the settled value (NaN: none)
	end      int     // the limit at the end

	meanDepth float64 // over the window
	latRatio  float64 // mean reported latency ÷ the no-load latency, over the window
	growth    float64 // mean limit over the last quarter ÷ over the quarter before
}

// measure computes the common metrics of a trace.
func measure(tr bakeTrace, sp bakeSpan) bakeMetrics {
	n := len(tr.limits)
	from := sp.event + (n-sp.event)/2
	m := bakeMetrics{toBusy: -1, revPerH: reversalsPerHour(tr.limits, from, n), end: tr.limits[n-1], peak: math.NaN(),
		growth: meanLimit(tr.limits, n-n/4, n) / meanLimit(tr.limits, n-n/2, n-n/4)}
	for k := sp.event; k < n; k++ {
		if o := tr.outs[k]; o.room > 0 && float64(o.served) >= 0.95*float64(o.room) {
			m.toBusy = k - sp.event
			break
		}
	}
	var calls, rej, lost, served, room int
	for k, o := range tr.outs {
		calls += o.calls
		rej += o.rejected
		lost += o.dropped
		m.waitJobH += float64(o.depth) / float64(tr.callsPerJob) * tickHours
		if k >= from {
			served += o.served
			room += o.room
			m.absErr += math.Abs(float64(o.depth)-bakeTarget) / float64(n-from)
			m.meanDepth += float64(o.depth) / float64(n-from)
			m.latRatio += o.latency / tr.service / float64(n-from)
		}
	}
	m.rate429 = share(rej, calls)
	m.lostRate = share(lost, calls)
	m.headroom = share(served, room)
	if !math.IsNaN(sp.settled) {
		peak := 0
		for _, v := range tr.limits[max(sp.event, sp.peakFrom):] {
			peak = max(peak, v)
		}
		m.peak = float64(peak) / sp.settled
	}
	return m
}

// bakeRow is one controller's line of a case's table: the common metrics
// and the case's own values, by name (some shown as columns, some only
// checked).
type bakeRow struct {
	name string
	m    bakeMetrics
	x    map[string]float64
}

// bakeTable formats one case's rows as a markdown table: the common
// columns, then the case's own (keys of bakeRow.x).
func bakeTable(title string, extraCols []string, rows []bakeRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#### %s\n\n", title)
	cols := append([]string{"controller", "ticks to 95% busy", "reversals/h", `mean \|d − T\|`, "429 rate",
		"lost rate", "headroom", "gateway-wait job-h", "peak ÷ settled", "limit at end"}, extraCols...)
	b.WriteString("| " + strings.Join(cols, " | ") + " |\n| --- |")
	for range cols[1:] {
		b.WriteString(" ---: |")
	}
	b.WriteString("\n")
	num := func(v float64, f string) string {
		if math.IsNaN(v) {
			return "–"
		}
		return fmt.Sprintf(f, v)
	}
	for _, r := range rows {
		busy := "never"
		if r.m.toBusy >= 0 {
			busy = fmt.Sprint(r.m.toBusy)
		}
		cells := []string{r.name, busy, num(r.m.revPerH, "%.1f"), num(r.m.absErr, "%.1f"),
			num(100*r.m.rate429, "%.1f%%"), num(100*r.m.lostRate, "%.1f%%"), num(r.m.headroom, "%.3f"),
			num(r.m.waitJobH, "%.1f"), num(r.m.peak, "%.2f"), fmt.Sprint(r.m.end)}
		for _, c := range extraCols {
			v, ok := r.x[c]
			if !ok {
				v = math.NaN()
			}
			f := "%.2f"
			if strings.HasPrefix(c, "cuts") || strings.HasPrefix(c, "raises") {
				f = "%.0f" // counts of ticks
			}
			cells = append(cells, num(v, f))
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}

// bakeCase is one scenario of the bake-off.
type bakeCase struct {
	name, title string
	extraCols   []string
	// run drives one controller through the scenario; mod, if set, changes
	// the provider or (through fluidRun.tune) the config: a control's change.
	run func(t *testing.T, kind ControllerKind, mod func(*fluidRun)) bakeRow
	// check asserts what the case expects of a controller (nil: nothing).
	check func(t *testing.T, kind ControllerKind, r bakeRow)
	// controls are extra rows: one controller with one change.
	controls []bakeControl
}

type bakeControl struct {
	name  string
	kind  ControllerKind
	mod   func(*fluidRun)
	check func(t *testing.T, r bakeRow)
}

// bakeFluid is the bake-off's provider: the harness's (200 streams, 2
// calls per job, 20 s calls, 12-tick jobs, T = 8: settled at 104 jobs),
// with the gateway's quota signal on, changed by mod.
func bakeFluid(mod func(*fluidRun)) fluidRun {
	fr := baseFluid
	fr.quotaState = true
	if mod != nil {
		mod(&fr)
	}
	return fr
}

// settled is the limit at which the depth holds at T: (capacity + T) / callsPerJob.
func (fr fluidRun) settled() float64 {
	return float64(fr.capacity+bakeTarget) / float64(fr.callsPerJob)
}

// withTune chains a config change after fr's own.
func withTune(fr *fluidRun, tune func(*SchedulerConfig)) {
	prev := fr.tune
	fr.tune = func(c *SchedulerConfig) {
		if prev != nil {
			prev(c)
		}
		tune(c)
	}
}

// pacedRamp is the fewest ticks slowstart's probe takes to multiply the
// limit by ratio: ×factor per dead time.
func pacedRamp(ratio float64) float64 {
	return bakeTheta * math.Log(ratio) / math.Log(bakeFactor)
}

// within reports whether v lies in [lo, hi], for messages.
func within(v, lo, hi float64) bool { return v >= lo && v <= hi }

// Case 1: a quota binds at half the capacity for a long spell, then lifts.
// The provider also answers 429 beyond a queue of 40, as in cases 2 and 7.
const (
	q1Ramp, q1Spell, q1After = 200, 300, 200
	bakeThrottle             = 40
)

func caseQuota() bakeCase {
	return bakeCase{
		name:      "1 quota",
		title:     "1. Sustained rate limiting (inspect_ai #5137, fixed by #5138)",
		extraCols: []string{"limit at lift ÷ quota's", "peak under the quota ÷ quota's", "cuts under the quota", "raises on a 429 tick"},
		run: func(t *testing.T, kind ControllerKind, mod func(*fluidRun)) bakeRow {
			fr := bakeFluid(mod)
			fr.throttleAt = bakeThrottle
			l := newFluidLoop(t, kind, fr)
			l.run(q1Ramp)
			l.quota = fr.capacity / 2
			l.run(q1Spell)
			l.quota = 0
			l.run(q1After)
			raises, cuts, peak := 0, 0, 0
			for k := q1Ramp + 2*fr.jobTicks; k < q1Ramp+q1Spell; k++ {
				peak = max(peak, l.limits[k]) // once the jobs started before it have finished
			}
			for k := 1; k < len(l.limits); k++ {
				if l.outs[k].rejected > 0 && l.limits[k] > l.limits[k-1] {
					raises++
				}
				if k >= q1Ramp && k < q1Ramp+q1Spell && l.limits[k] < l.limits[k-1] {
					cuts++
				}
			}
			quotaLimit := float64(fr.capacity/2) / float64(fr.callsPerJob)
			return bakeRow{m: measure(traceOf(l), bakeSpan{event: q1Ramp + q1Spell, settled: fr.settled()}),
				x: map[string]float64{
					"limit at lift ÷ quota's":        float64(l.limits[q1Ramp+q1Spell-1]) / quotaLimit,
					"peak under the quota ÷ quota's": float64(peak) / quotaLimit,
					"cuts under the quota":           float64(cuts),
					"raises on a 429 tick":           float64(raises),
				}}
		},
		check: func(t *testing.T, kind ControllerKind, r bakeRow) {
			// the quota rule (or inspect's own) never raises on a tick with 429s
			if n := r.x["raises on a 429 tick"]; n != 0 {
				t.Errorf("raised the limit on %v ticks with 429s, want none", n)
			}
			switch kind {
			case ControllerInspect:
				// #5137: inspect_ai's limit froze after one cut (a debounce
				// pushed on by every retry). The rule modelled here debounces
				// from the cut only: it keeps cutting and follows the quota.
				if n := r.x["cuts under the quota"]; n < 2 {
					t.Errorf("inspect cut %v times under the quota, want ≥ 2 (not frozen)", n)
				}
				if v := r.x["limit at lift ÷ quota's"]; !within(v, 0.7, 1.5) {
					t.Errorf("inspect: limit at lift = %.2f × the quota's, want 0.7..1.5", v)
				}
			case ControllerSlowStart:
				if v := r.x["limit at lift ÷ quota's"]; !within(v, 0.7, 1.3) {
					t.Errorf("limit at lift = %.2f × the quota's, want 0.7..1.3 (neither frozen nor run away)", v)
				}
				// probing past the quota shows as 429s within a tick: the
				// limit passes the quota's by at most one probe step
				if v := r.x["peak under the quota ÷ quota's"]; v > bakeFactor {
					t.Errorf("peak limit under the quota = %.2f × the quota's, want ≤ %.2f", v, bakeFactor)
				}
				// from one quota-rule cut below the quota's limit to 95% of
				// the capacity, at ×factor per dead time, plus two dead times
				bound := int(pacedRamp(0.95*2*bakeFactor)) + 2*bakeTheta
				if r.m.toBusy < 0 || r.m.toBusy > bound {
					t.Errorf("ticks to 95%% busy after the lift = %d, want 0..%d", r.m.toBusy, bound)
				}
				if v := float64(r.m.end) / baseFluid.settled(); !within(v, 0.95, 1.05) || r.m.revPerH > 4 {
					t.Errorf("after the lift: limit %d = %.2f × settled, %.1f reversals/h; want ±5%%, ≤ 4/h",
						r.m.end, v, r.m.revPerH)
				}
			}
		},
		controls: []bakeControl{{
			name: "slowstart, ignore_quota", kind: ControllerSlowStart,
			mod: func(fr *fluidRun) { withTune(fr, func(c *SchedulerConfig) { c.IgnoreQuota = true }) },
			check: func(t *testing.T, r bakeRow) {
				// negative control: without the quota signal the depth (0: the
				// 429ed calls back off outside the queue) raises to max_limit
				if v := r.x["limit at lift ÷ quota's"]; v < 0.9*bakeMax/(float64(baseFluid.capacity/2)/float64(baseFluid.callsPerJob)) {
					t.Errorf("ignore_quota: limit at lift = %.2f × the quota's, want the runaway to max_limit", v)
				}
			},
		}},
	}
}

// Case 2: two evaluations, each with its own scheduler and controller, on
// one key: one provider, its capacity and its 429s (beyond a queue of 40)
// shared, the 429s split between them by their calls. B starts at join.
func caseShared(name, title string, join, n int, check func(*testing.T, ControllerKind, bakeRow)) bakeCase {
	return bakeCase{
		name:      name,
		title:     title,
		extraCols: []string{"share of A", "total running ÷ settled", "peak total ÷ settled"},
		run: func(t *testing.T, kind ControllerKind, mod func(*fluidRun)) bakeRow {
			fr := bakeFluid(mod)
			fr.throttleAt = bakeThrottle
			a, b := newFluidLoop(t, kind, fr), newFluidLoop(t, kind, fr)
			for k := range n {
				ca, cb := a.calls(), 0
				if k >= join {
					cb = b.calls()
				}
				o := fr.provide(ca + cb)
				ra := 0
				if ca+cb > 0 {
					ra = o.rejected * ca / (ca + cb)
				}
				a.observe(o, ra)
				a.decide(o)
				if k >= join {
					b.observe(o, o.rejected-ra)
					b.decide(o)
				}
			}
			// b's arrays start at join
			tr := bakeTrace{limits: make([]int, n), running: make([]int, n), outs: a.outs,
				callsPerJob: fr.callsPerJob, service: fr.service}
			for k := range n {
				tr.limits[k], tr.running[k] = a.limits[k], a.running[k]
				if k >= join {
					tr.limits[k] += b.limits[k-join]
					tr.running[k] += b.running[k-join]
				}
			}
			m := measure(tr, bakeSpan{event: join, settled: fr.settled()})
			from := join + (n-join)/2
			m.revPerH = reversalsPerHour(a.limits, from, n) + reversalsPerHour(b.limits, from-join, n-join)
			var ra, rt, peak int
			for k := from; k < n; k++ {
				ra += a.running[k]
				rt += tr.running[k]
			}
			for k := join; k < n; k++ {
				peak = max(peak, tr.running[k])
			}
			return bakeRow{m: m, x: map[string]float64{"share of A": share(ra, rt),
				"total running ÷ settled": float64(rt) / float64(n-from) / fr.settled(),
				"peak total ÷ settled":    float64(peak) / fr.settled()}}
		},
		check: check,
	}
}

// checkShared: what the field reported of inspect on a shared key, and the
// total the default holds (its split is checked by each sub-case).
func checkShared(t *testing.T, kind ControllerKind, r bakeRow) {
	switch kind {
	case ControllerInspect:
		// it finds the key's top only through 429s: the running jobs of
		// the two must pass (capacity + throttle) / callsPerJob
		top := float64(baseFluid.capacity+bakeThrottle) / float64(baseFluid.callsPerJob)
		if r.m.rate429 == 0 || r.x["peak total ÷ settled"]*baseFluid.settled() < top {
			t.Errorf("inspect: 429 rate %.3f, peak total %.0f; want 429s and a peak ≥ %.0f",
				r.m.rate429, r.x["peak total ÷ settled"]*baseFluid.settled(), top)
		}
	case ControllerSlowStart:
		if v := r.x["total running ÷ settled"]; !within(v, 0.95, 1.3) {
			t.Errorf("total running = %.2f × one controller's settled value, want 0.95..1.3", v)
		}
		if v := r.x["peak total ÷ settled"]; v > 1.3 {
			t.Errorf("peak total running = %.2f × settled, want ≤ 1.3", v)
		}
	}
}

// Cases 3 and 4 run lossTicks ticks; in case 4 calls beyond a queue of
// fastFailAt fail at once.
const lossTicks, fastFailAt = 300, 40

// Case 3: calls beyond the capacity time out: no queue, no 429, flat latency.
func caseTimeouts() bakeCase {
	return bakeCase{
		name:  "3 timeouts",
		title: "3. Steady timeouts, no latency change (concurrency-limits #137)",
		run: func(t *testing.T, kind ControllerKind, mod func(*fluidRun)) bakeRow {
			fr := bakeFluid(mod)
			fr.loss = lossTimeout
			l := newFluidLoop(t, kind, fr)
			l.run(lossTicks)
			// the right limit keeps the provider busy and loses nothing
			return bakeRow{m: measure(traceOf(l), bakeSpan{settled: float64(fr.capacity) / float64(fr.callsPerJob)})}
		},
		check: func(t *testing.T, kind ControllerKind, r bakeRow) {
			// no controller here can see a timeout: none stops at the right limit
			if r.m.peak < 2 {
				t.Errorf("peak limit = %.2f × the right one, want ≥ 2 (timeouts are invisible)", r.m.peak)
			}
			switch kind {
			case ControllerGradient: // #137: Gradient2 grows to max_limit on a flat latency
				if r.m.growth <= 1 || r.m.peak < 5 {
					t.Errorf("gradient: peak %.2f × right limit, growth %.2f; want ≥ 5 and still growing", r.m.peak, r.m.growth)
				}
			case ControllerSlowStart:
				// Known limitation: the depth never shows a timed-out call,
				// so the probe climbs to max_limit and 19 jobs in 20 hold a
				// container for calls that time out.
				if r.m.end != bakeMax || r.m.lostRate < 0.5 {
					t.Errorf("slowstart (known limitation): limit %d, lost %.2f; want max_limit %d and most calls lost",
						r.m.end, r.m.lostRate, bakeMax)
				}
			}
		},
	}
}

// Case 4: calls beyond a queue of 40 fail at once, with ~0 s in the mean.
func caseFastFail() bakeCase {
	return bakeCase{
		name:      "4 fast fail",
		title:     "4. Dropped calls averaged in at ~0 latency (concurrency-limits #176)",
		extraCols: []string{"latency ÷ no-load"},
		run: func(t *testing.T, kind ControllerKind, mod func(*fluidRun)) bakeRow {
			fr := bakeFluid(func(fr *fluidRun) { fr.loss, fr.lossAt = lossFastFail, fastFailAt })
			if mod != nil {
				mod(&fr)
			}
			l := newFluidLoop(t, kind, fr)
			l.run(lossTicks)
			m := measure(traceOf(l), bakeSpan{settled: fr.settled()})
			return bakeRow{m: m, x: map[string]float64{"latency ÷ no-load": m.latRatio}}
		},
		check: func(t *testing.T, kind ControllerKind, r bakeRow) {
			switch kind {
			case ControllerGradient: // #176: the fast failures pull the mean below the no-load latency
				if r.m.peak < 5 || r.m.growth <= 1 || r.m.latRatio >= 1 {
					t.Errorf("gradient: peak %.2f × settled, growth %.2f, latency %.2f × no-load; want ≥ 5, growing, < 1",
						r.m.peak, r.m.growth, r.m.latRatio)
				}
			case ControllerInspect: // hears only 429s; a fast failure is not one
				if r.m.end != bakeMax {
					t.Errorf("inspect: limit at end %d, want max_limit %d", r.m.end, bakeMax)
				}
			case ControllerSlowStart: // the queue shows before the calls fail
				if v := float64(r.m.end) / baseFluid.settled(); !within(v, 0.95, 1.05) || r.m.lostRate > 0.01 {
					t.Errorf("limit at end = %.2f × settled, lost %.3f; want ±5%%, ≤ 1%%", v, r.m.lostRate)
				}
			}
		},
		controls: []bakeControl{{
			name: "gradient, failures kept out of the mean", kind: ControllerGradient,
			mod: func(fr *fluidRun) { fr.loss = lossTimeout },
			check: func(t *testing.T, r bakeRow) {
				// the queue's cap alone hides the overload: 1 + 40/200 = 1.2 × the
				// no-load latency, under gradient's tolerance of 1.5
				capped := 1 + 40/float64(baseFluid.capacity)
				if capped >= gradTolerance || r.m.peak < 5 || math.Abs(r.m.latRatio-capped) > 0.01 {
					t.Errorf("control: peak %.2f × settled, latency %.2f × no-load; want ≥ 5 and %.2f", r.m.peak, r.m.latRatio, capped)
				}
			},
		}},
	}
}

// Case 5: a sustained modest overload on a large provider (1,000 streams),
// latency only (no 429s, no loss).
const modestCapacity, modestMax, modestTicks = 1000, 5000, 600

func caseModest() bakeCase {
	return bakeCase{
		name:      "5 modest overload",
		title:     "5. Sustained modest overload, a large provider (concurrency-limits #134)",
		extraCols: []string{"latency ÷ no-load", "limit growth, last quarter"},
		run: func(t *testing.T, kind ControllerKind, mod func(*fluidRun)) bakeRow {
			fr := bakeFluid(func(fr *fluidRun) {
				fr.capacity = modestCapacity
				withTune(fr, func(c *SchedulerConfig) { c.MaxLimit = modestMax })
			})
			if mod != nil {
				mod(&fr)
			}
			l := newFluidLoop(t, kind, fr)
			l.run(modestTicks)
			m := measure(traceOf(l), bakeSpan{settled: fr.settled()})
			return bakeRow{m: m, x: map[string]float64{"latency ÷ no-load": m.latRatio, "limit growth, last quarter": m.growth}}
		},
		check: func(t *testing.T, kind ControllerKind, r bakeRow) {
			const capacity = modestCapacity
			switch kind {
			case ControllerGradient:
				// #134: Gradient2's queue term grows the limit without bound under
				// modest overload, its baseline learning the loaded latency. Here
				// the baseline learns only from readings within 10% of it: the
				// limit is bounded, but it lowers only once the latency passes
				// 1.5 × the no-load one, i.e. with a queue over capacity / 2.
				if r.m.growth > 1.02 || r.m.meanDepth < 0.95*(gradTolerance-1)*capacity {
					t.Errorf("gradient: growth %.3f, mean depth %.0f; want ≤ 1.02 (bounded) and ≥ %.0f",
						r.m.growth, r.m.meanDepth, 0.95*(gradTolerance-1)*capacity)
				}
			case ControllerSlowStart:
				settled := float64(capacity+bakeTarget) / 2
				bound := int(1.25*pacedRamp(0.95*float64(capacity)/2/DefaultInitialLimit)) + 2*bakeTheta
				if r.m.toBusy < 0 || r.m.toBusy > bound {
					t.Errorf("ticks to 95%% busy = %d, want 0..%d", r.m.toBusy, bound)
				}
				if v := float64(r.m.end) / settled; !within(v, 0.95, 1.05) || r.m.absErr > bakeTarget/2 || r.m.revPerH > 4 {
					t.Errorf("limit at end %.2f × settled, mean |d − T| %.1f, %.1f reversals/h; want ±5%%, ≤ %d, ≤ 4",
						v, r.m.absErr, r.m.revPerH, bakeTarget/2)
				}
			}
		},
	}
}

// Case 6: the provider is loaded from before the start (a restart while
// twice the settled number of jobs run, at that limit): the no-load latency
// is not observed at the start, and a controller holding a queue never
// observes it.
func caseLoadedStart() bakeCase {
	init := int(2 * baseFluid.settled())
	return bakeCase{
		name:      "6 loaded start",
		title:     "6. A latency baseline learned under load (Envoy #8337, #11579)",
		extraCols: []string{"latency ÷ no-load"},
		run: func(t *testing.T, kind ControllerKind, mod func(*fluidRun)) bakeRow {
			fr := bakeFluid(func(fr *fluidRun) {
				fr.initRunning = init
				withTune(fr, func(c *SchedulerConfig) { c.InitialLimit = init })
			})
			if mod != nil {
				mod(&fr)
			}
			l := newFluidLoop(t, kind, fr)
			l.run(400)
			// the peak includes the initial limit, 2 × settled
			m := measure(traceOf(l), bakeSpan{settled: fr.settled()})
			return bakeRow{m: m, x: map[string]float64{"latency ÷ no-load": m.latRatio}}
		},
		check: func(t *testing.T, kind ControllerKind, r bakeRow) {
			fr := baseFluid
			switch kind {
			case ControllerGradient:
				// #11579: a baseline learned under load. The first reading
				// is L0 = service × (1 + (callsPerJob·init − capacity) /
				// capacity); the baseline never falls below it (it learns only
				// near itself, and decays only when over twice the newest
				// reading), so gradient lowers only past 1.5 × L0.
				l0 := 1 + float64(fr.callsPerJob*init-fr.capacity)/float64(fr.capacity)
				want := 0.95 * float64(fr.capacity) * (gradTolerance*l0 - 1)
				if r.m.meanDepth < want {
					t.Errorf("gradient: mean depth %.0f, want ≥ %.0f (a queue set by the loaded baseline)", r.m.meanDepth, want)
				}
			case ControllerInspect: // no 429s here: it climbs to max_limit
				if r.m.end != bakeMax {
					t.Errorf("inspect: limit at end %d, want max_limit %d", r.m.end, bakeMax)
				}
			case ControllerSlowStart: // no baseline to learn: the target is a depth
				initial := float64(init) / fr.settled()
				if v := float64(r.m.end) / fr.settled(); !within(v, 0.95, 1.05) || r.m.absErr > 1 || r.m.peak > initial {
					t.Errorf("limit at end %.2f × settled, mean |d − T| %.1f, peak %.2f; want ±5%%, ≤ 1, ≤ the initial %.2f",
						v, r.m.absErr, r.m.peak, initial)
				}
			}
		},
	}
}

// checkSettles: slowstart is at its settled limit at the end, with the
// depth on target and no cycling.
func checkSettles(t *testing.T, r bakeRow, settled float64) {
	if v := float64(r.m.end) / settled; !within(v, 0.95, 1.05) || r.m.absErr > 1 || r.m.revPerH > 4 {
		t.Errorf("limit at end %.2f × settled (%.0f), mean |d − T| %.1f, %.1f reversals/h; want ±5%%, ≤ 1, ≤ 4",
			v, settled, r.m.absErr, r.m.revPerH)
	}
}

// Cases 7a–7c: from tick 300 the capacity halves for slowTicks (7a); jobs
// run longFactor × as long for longTicks (7b); the readings freeze for
// staleTicks over a lasting halving (7c).
const slowTicks, longFactor, longTicks, staleTicks = 200, 5, 150, 30

// Case 7a: the provider slows (capacity halved), then recovers.
func caseSlowdown() bakeCase {
	return bakeCase{
		name:      "7a slowdown",
		title:     fmt.Sprintf("7a. Provider slowdown (capacity halved for %d ticks) and recovery", slowTicks),
		extraCols: []string{"limit while halved ÷ its settled"},
		run: func(t *testing.T, kind ControllerKind, mod func(*fluidRun)) bakeRow {
			fr := bakeFluid(mod)
			fr.throttleAt = bakeThrottle
			l := newFluidLoop(t, kind, fr)
			l.run(300)
			l.capacity /= 2
			half := l.fluidRun.settled()
			l.run(slowTicks)
			during := meanLimit(l.limits, 300+slowTicks-50, 300+slowTicks) / half
			l.capacity = fr.capacity
			l.run(200)
			return bakeRow{m: measure(traceOf(l), bakeSpan{event: 300 + slowTicks, settled: fr.settled()}),
				x: map[string]float64{"limit while halved ÷ its settled": during}}
		},
		check: func(t *testing.T, kind ControllerKind, r bakeRow) {
			switch kind {
			case ControllerStep: // the negative control: the metric must say it cycles
				if r.m.revPerH < 30 {
					t.Errorf("step: %.1f reversals/h, want ≥ 30 (it cycles)", r.m.revPerH)
				}
			case ControllerSlowStart:
				if v := r.x["limit while halved ÷ its settled"]; !within(v, 0.9, 1.1) {
					t.Errorf("limit while halved = %.2f × its settled value, want 0.9..1.1", v)
				}
				// from the halved settled limit to 95% of the capacity's
				bound := int(1.5*pacedRamp(0.95*float64(baseFluid.capacity)/float64(baseFluid.capacity/2+bakeTarget))) + 2*bakeTheta
				if r.m.toBusy < 0 || r.m.toBusy > bound {
					t.Errorf("ticks to 95%% busy after the recovery = %d, want 0..%d", r.m.toBusy, bound)
				}
				checkSettles(t, r, baseFluid.settled())
			}
		},
	}
}

// Case 7b: a burst of long jobs: 5× as long for 150 ticks.
func caseLongJobs() bakeCase {
	return bakeCase{
		name:  "7b long jobs",
		title: fmt.Sprintf("7b. A burst of long jobs (%d× as long for %d ticks)", longFactor, longTicks),
		run: func(t *testing.T, kind ControllerKind, mod func(*fluidRun)) bakeRow {
			fr := bakeFluid(mod)
			fr.throttleAt = bakeThrottle
			l := newFluidLoop(t, kind, fr)
			l.run(200)
			l.jobTicks *= longFactor
			l.run(longTicks)
			l.jobTicks = fr.jobTicks
			l.run(250)
			return bakeRow{m: measure(traceOf(l), bakeSpan{event: 200, settled: fr.settled()})}
		},
		check: func(t *testing.T, kind ControllerKind, r bakeRow) {
			if kind == ControllerSlowStart {
				checkSettles(t, r, baseFluid.settled())
				if r.m.peak > 1.1 {
					t.Errorf("peak limit %.2f × settled, want ≤ 1.1", r.m.peak)
				}
			}
		},
	}
}

// Case 7c: the metrics pipeline freezes for 30 ticks while the provider
// slows to half (and stays there): the 429 signal is not frozen.
func caseStale() bakeCase {
	return bakeCase{
		name:      "7c stale",
		title:     fmt.Sprintf("7c. A stale metrics pipeline (readings frozen %d ticks) over a slowdown", staleTicks),
		extraCols: []string{"raises while stale"},
		run: func(t *testing.T, kind ControllerKind, mod func(*fluidRun)) bakeRow {
			fr := bakeFluid(mod)
			fr.throttleAt = bakeThrottle
			l := newFluidLoop(t, kind, fr)
			l.run(300)
			l.stale = true
			l.capacity /= 2
			l.run(staleTicks)
			l.stale = false
			l.run(200 - staleTicks)
			raises := 0
			for k := 300; k < 300+staleTicks; k++ {
				if l.limits[k] > l.limits[k-1] {
					raises++
				}
			}
			return bakeRow{m: measure(traceOf(l), bakeSpan{event: 300 + staleTicks, settled: l.fluidRun.settled()}),
				x: map[string]float64{"raises while stale": float64(raises),
					"limit before the spell": float64(l.limits[299]), "limit at the spell's end": float64(l.limits[300+staleTicks-1])}}
		},
		check: func(t *testing.T, kind ControllerKind, r bakeRow) {
			// a frozen reading is never read as room to grow
			if n := r.x["raises while stale"]; n != 0 {
				t.Errorf("raised the limit on %v ticks of the stale spell, want none", n)
			}
			if kind == ControllerSlowStart {
				checkSettles(t, r, float64(baseFluid.capacity/2+bakeTarget)/float64(baseFluid.callsPerJob))
			}
		},
	}
}

// bakeJoin is the tick at which B joins in case 2b.
const bakeJoin = 150

func bakeCases() []bakeCase {
	return []bakeCase{
		caseQuota(),
		caseShared("2a shared key", "2a. Two evaluations on one key, started together (inspect_ai #4411)", 0, 400,
			func(t *testing.T, kind ControllerKind, r bakeRow) {
				checkShared(t, kind, r)
				if v := r.x["share of A"]; kind == ControllerSlowStart && !within(v, 0.35, 0.65) {
					t.Errorf("share of A = %.2f, want 0.35..0.65", v)
				}
			}),
		caseShared("2b shared key, B joins", fmt.Sprintf("2b. Two evaluations on one key, B joins at tick %d (inspect_ai #4411)", bakeJoin), bakeJoin, 600,
			func(t *testing.T, kind ControllerKind, r bakeRow) {
				checkShared(t, kind, r)
				// Known limitation: the two integral controllers read one depth
				// and move their limits by the same number of jobs, so the gap
				// at B's start stays: A keeps nearly all the key. (Within one
				// scheduler admission shares a model's limit across projects;
				// this is two schedulers on one key.)
				if v := r.x["share of A"]; kind == ControllerSlowStart && v <= 0.65 {
					t.Errorf("share of A = %.2f: the known limitation (> 0.65) is gone, update the case", v)
				}
			}),
		caseTimeouts(),
		caseFastFail(),
		caseModest(),
		caseLoadedStart(),
		caseSlowdown(),
		caseLongJobs(),
		caseStale(),
	}
}

// TestBakeoff runs every controller through every case, checks each, and
// logs (and with -bakeoff.out writes) one table per case; the whole study,
// tables and prose, must be what bakeoffStudy writes from these rows.
func TestBakeoff(t *testing.T) {
	var out strings.Builder
	cases := bakeCases()
	rows := bakeResults{}
	for _, bc := range cases {
		t.Run(bc.name, func(t *testing.T) {
			var rs []bakeRow
			for _, kind := range Controllers {
				t.Run(string(kind), func(t *testing.T) {
					r := bc.run(t, kind, nil)
					r.name = string(kind)
					if bc.check != nil {
						bc.check(t, kind, r)
					}
					rs = append(rs, r)
				})
			}
			for _, c := range bc.controls {
				t.Run(c.name, func(t *testing.T) {
					r := bc.run(t, c.kind, c.mod)
					r.name = c.name + " (control)"
					c.check(t, r)
					rs = append(rs, r)
				})
			}
			tab := bakeTable(bc.title, bc.extraCols, rs)
			t.Log("\n" + tab)
			out.WriteString(tab + "\n")
			rows[bc.name] = rs
		})
	}
	if *bakeoffOut != "" {
		if err := os.WriteFile(*bakeoffOut, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(rows) == len(cases) && !t.Failed() {
		checkBakeoffDoc(t, bakeoffStudy(cases, rows))
	}
}

// checkBakeoffDoc: docs/studies/bakeoff.md is byte for byte the study this
// run writes, so neither its tables nor its prose can drift from the
// harness; with -bakeoff.update it rewrites the file.
func checkBakeoffDoc(t *testing.T, want string) {
	if *bakeoffUpdate {
		if err := os.WriteFile(bakeoffDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(bakeoffDoc)
	if err != nil {
		t.Fatal(err)
	}
	if have := string(b); have != want {
		t.Errorf("%s differs from this run (`go test ./policies -run TestBakeoff -args -bakeoff.update` rewrites it):\n%s",
			bakeoffDoc, firstDiff(have, want))
	}
}

// firstDiff shows the first line at which have and want differ.
func firstDiff(have, want string) string {
	h, w := strings.Split(have, "\n"), strings.Split(want, "\n")
	for i := range max(len(h), len(w)) {
		var hl, wl string
		if i < len(h) {
			hl = h[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if hl != wl {
			return fmt.Sprintf("line %d:\nhave: %s\nwant: %s", i+1, hl, wl)
		}
	}
	return "(line endings differ)"
}

// TestQuotaCutSticks: a cut by the quota rule must hold for the rivals that
// move a real-valued limit (slowstart, pi, gradient): the next clean tick
// raises from the cut, not from the limit before it (regression: the limit
// went 42 → 105 in one tick under a quota at 50).
func TestQuotaCutSticks(t *testing.T) {
	for _, kind := range Controllers {
		t.Run(string(kind), func(t *testing.T) {
			fr := bakeFluid(nil)
			fr.throttleAt = bakeThrottle
			l := newFluidLoop(t, kind, fr)
			l.run(q1Ramp)
			l.quota = fr.capacity / 2
			l.run(100)
			for k := q1Ramp + 1; k < len(l.limits); k++ {
				if prev := l.limits[k-1]; l.limits[k] > int(math.Round(2*float64(prev))) {
					t.Fatalf("tick %d: limit %d → %d under the quota, want at most ×2", k, prev, l.limits[k])
				}
			}
		})
	}
}

// TestInspectHearsQuota429s: inspect reads the 429s itself; a State that also
// offers the quota signal must not change what it does (regression: the
// quota rule took every tick with a 429, and inspect doubled for ever).
func TestInspectHearsQuota429s(t *testing.T) {
	limits := map[bool][]int{}
	for _, qs := range []bool{false, true} {
		fr := bakeFluid(nil)
		fr.throttleAt, fr.quotaState = bakeThrottle, qs
		l := newFluidLoop(t, ControllerInspect, fr)
		l.run(200)
		limits[qs] = l.limits
	}
	for k := range limits[true] {
		if limits[true][k] != limits[false][k] {
			t.Fatalf("tick %d: limit %d with QuotaState, %d without; want the same", k, limits[true][k], limits[false][k])
		}
	}
}
