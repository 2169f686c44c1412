package sim

import (
	"slices"
	"testing"
	"time"

	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/scenario"
)

// decideRecorder wraps a policy and notes, at every decision, how far the
// event log had grown and the limits the policy returned.
type decideRecorder struct {
	policies.Policy
	w     *World
	ticks []decision
}

type decision struct {
	logLen int
	limits []int
}

func (r *decideRecorder) Decide(now time.Time, state policies.State, plan *policies.Plan) {
	r.Policy.Decide(now, state, plan)
	r.ticks = append(r.ticks, decision{len(r.w.Log()), slices.Clone(plan.Limits)})
}

// raisesOn429 counts the decisions that raised a model's limit although the
// event log holds a 429 on that model (any caller's try) since the decision
// before: the "no raise while its model is being rejected", read
// from the log, not from the counters the scheduler reads.
func raisesOn429(log []LogRecord, ticks []decision) (bad, raises int) {
	for k := 1; k < len(ticks); k++ {
		prev, cur := ticks[k-1], ticks[k]
		if prev.limits == nil || cur.limits == nil {
			continue
		}
		rejected := map[int32]bool{}
		for _, r := range log[prev.logLen:cur.logLen] {
			if r.Event == LogCall429 || r.Event == LogCallKey429 {
				rejected[r.Model] = true
			}
		}
		for m := range cur.limits {
			if cur.limits[m] > prev.limits[m] {
				raises++
				if rejected[int32(m)] {
					bad++
				}
			}
		}
	}
	return bad, raises
}

// TestNoRaiseWhileRejected runs the scheduler where quotas bind and checks
// from the event log that no decision raised a model's limit after a 429 on
// that model since the decision before; the scheduler on the old signal
// (ignore_quota, depth without backoff) is the negative control and must
// be caught doing it.
func TestNoRaiseWhileRejected(t *testing.T) {
	incident := func(t *testing.T, extra, signal string) (*scenario.Scenario, string) {
		data, err := scenario.EmbeddedYAML("incident-0214")
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, `
  quota-bound:
    policy: scheduler
    organisations:
      - {name: acme, tpm: 1000000, tpd: 0, rpd: 0}
    policies:
      scheduler: {initial_limit: 4, step_mode: multiplicative, factor: 1.25, target_depth: 8`+extra+`}
    gateway: {depth_signal: `+signal+`}
`...)
		sc, err := scenario.ParseScenario("incident.yaml", data)
		if err != nil {
			t.Fatal(err)
		}
		return sc, "quota-bound"
	}
	azure := func(t *testing.T, name string) (*scenario.Scenario, string) { return loadAzureProduction(t), name }
	cases := []struct {
		name    string
		load    func(*testing.T) (*scenario.Scenario, string)
		control bool // the old signal: raises on 429 ticks expected
		slow    bool
	}{
		{"incident eval, binding TPM", func(t *testing.T) (*scenario.Scenario, string) { return incident(t, "", "held") }, false, false},
		{"incident eval, old signal (control)", func(t *testing.T) (*scenario.Scenario, string) {
			return incident(t, ", ignore_quota: true", "queued")
		}, true, false},
		{"azure-production quota-scheduler", func(t *testing.T) (*scenario.Scenario, string) { return azure(t, "quota-scheduler") }, false, true},
		{"azure-production quota-old-signal (control)", func(t *testing.T) (*scenario.Scenario, string) { return azure(t, "quota-old-signal") }, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && tc.slow {
				t.Skip("a full azure-production run")
			}
			sc, name := tc.load(t)
			v, err := sc.Variant(name)
			if err != nil {
				t.Fatal(err)
			}
			if tc.slow {
				// The first 1h30m (a third of the CPU of the whole 4h): the
				// quotas bind in it; the scheduler raised 1,526 times there,
				// none after a 429, the control 228 times after one.
				v.Scenario.Duration = 90 * time.Minute
			}
			rec := &decideRecorder{}
			w := runWorld(t, v.Scenario, v.Policy, Options{Seed: 1, Log: true}, func(w *World) {
				rec.Policy, rec.w = w.pol, w
				w.pol = rec // same Trigger: the wrapper only notes each decision
			})
			bad, raises := raisesOn429(w.Log(), rec.ticks)
			t.Logf("%d decisions, %d raises, %d of them after a 429 on the model", len(rec.ticks), raises, bad)
			if raises == 0 {
				t.Fatal("no raise at all: the check saw nothing")
			}
			if tc.control && bad == 0 {
				t.Error("the old signal raised no limit after a 429: the check cannot fail")
			}
			if !tc.control && bad > 0 {
				t.Errorf("%d raises after a 429 on the model since the decision before", bad)
			}
		})
	}
}
