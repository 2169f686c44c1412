package sim

import (
	"math"
	"strings"
	"testing"
)

// blockedTime is one lane's container time in a window, and the part of it
// its jobs spent blocked on the gateway: in a turn with no call accepted by
// the provider (queued, or waiting out a 429's backoff).
type blockedTime struct{ container, blocked float64 }

func (b blockedTime) share() float64 { return b.blocked / b.container }

// blockedFromLog sums, per model, the container time of every job (start to
// finish or failure) and the time it was blocked, clipped to [from, to],
// from the event log alone: a job is blocked while it has calls of a turn
// outstanding (created, not yet answered or given up) and none of them
// accepted.
func blockedFromLog(log []LogRecord, from, to Time, models int) []blockedTime {
	type job struct {
		model                 int32
		pending, service      int32
		holding, blockedSince Time
		running               bool
	}
	clip := func(a, b Time) float64 {
		a, b = max(a, from), min(b, to)
		if b <= a {
			return 0
		}
		return (b - a).Seconds()
	}
	out := make([]blockedTime, models)
	jobs := map[int64]*job{}
	for _, r := range log {
		if r.Job < 0 || r.Event == LogJobArrive {
			continue // production, or a job not yet holding a container
		}
		j := jobs[int64(r.Job)]
		if j == nil {
			j = &job{model: r.Model}
			jobs[int64(r.Job)] = j
		}
		wasBlocked := j.running && j.pending > 0 && j.service == 0
		switch r.Event {
		case LogJobStart:
			j.running, j.holding = true, r.T
		case LogJobFinish, LogJobFail:
			out[j.model].container += clip(j.holding, r.T)
			j.running = false
		case LogCallCreate:
			j.pending++
		case LogCallAccept:
			j.service++
		case LogCallAnswer:
			j.service--
			j.pending--
		case LogCallFail:
			j.pending--
		}
		isBlocked := j.running && j.pending > 0 && j.service == 0
		switch {
		case !wasBlocked && isBlocked:
			j.blockedSince = r.T
		case wasBlocked && !isBlocked:
			out[j.model].blocked += clip(j.blockedSince, r.T)
		}
		if !j.running {
			delete(jobs, int64(r.Job)) // finished
		}
	}
	for _, j := range jobs { // still running at the end
		if j.running {
			out[j.model].container += clip(j.holding, to)
			if j.pending > 0 && j.service == 0 {
				out[j.model].blocked += clip(j.blockedSince, to)
			}
		}
	}
	return out
}

// TestRunningJobsDoNotOutgrowTheQuota: what a quota admits shows as the
// container time that running jobs spend blocked on it. On
// azure-production's binding quotas (Anthropic's 20M TPM, and gpt-5.5's
// openai organisation shared with production), the share of a lane's
// container time its jobs spend with no call accepted, summed from the
// event log, must be lower under the scheduler than under fixed lanes on
// every lane that shares a binding quota, and the old signal (the
// negative control: depth without backoff, no quota signal) must run far
// above both. The recorder's gateway-wait container seconds, which the
// summary and report show, must agree with the log.
func TestRunningJobsDoNotOutgrowTheQuota(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three azure-production simulations, two with an event log")
	}
	sc := loadAzureProduction(t)
	hot := func(name string) bool { return strings.HasPrefix(name, "claude-") || name == "gpt-5.5" }
	share := map[string]map[string]float64{}
	for _, variant := range []string{"quota-fixed-lane", "quota-scheduler", "quota-old-signal"} {
		v, err := sc.Variant(variant)
		if err != nil {
			t.Fatal(err)
		}
		logged := variant != "quota-old-signal" // its millions of 429s make a log of gigabytes
		w := runWorld(t, v.Scenario, v.Policy, Options{Seed: 1, Log: logged}, nil)
		names := v.Scenario.Catalogue()
		share[variant] = map[string]float64{}
		var fromLog []blockedTime
		if logged {
			fromLog = blockedFromLog(w.Log(), FromDuration(v.Scenario.Warmup), FromDuration(v.Scenario.Duration), len(names))
		}
		for i, l := range w.Lanes() {
			if !hot(names[i]) {
				continue
			}
			rec := blockedTime{container: l.RunningArea, blocked: l.GatewayOnlyArea}
			if logged {
				got := fromLog[i]
				if math.Abs(got.container-rec.container) > 1e-6*rec.container || math.Abs(got.blocked-rec.blocked) > 1e-6*rec.container+1e-6 {
					t.Errorf("%s %s: container / blocked seconds %.3f / %.3f from the log, %.3f / %.3f from the recorder",
						variant, names[i], got.container, got.blocked, rec.container, rec.blocked)
				}
				rec = got
			}
			share[variant][names[i]] = rec.share()
		}
	}
	if len(share["quota-scheduler"]) != 6 {
		t.Fatalf("%d hot lanes measured, want 6", len(share["quota-scheduler"]))
	}
	for m, s := range share["quota-scheduler"] {
		fixed, old := share["quota-fixed-lane"][m], share["quota-old-signal"][m]
		if s >= fixed {
			t.Errorf("%s: running jobs blocked on the gateway %.1f%% of their container time under the scheduler, %.1f%% under fixed lanes: want lower", m, 100*s, 100*fixed)
		}
		if old < 2*fixed || old < 0.5 {
			t.Errorf("%s: the old signal's jobs blocked %.1f%% of their time (fixed lanes %.1f%%): the negative control should show the runaway", m, 100*old, 100*fixed)
		}
		t.Logf("%s: blocked %.1f%% (scheduler), %.1f%% (fixed lanes), %.1f%% (old signal)", m, 100*s, 100*fixed, 100*old)
	}
}
