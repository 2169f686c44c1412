package sim

import (
	"sort"
	"testing"

	"github.com/evalsched/lab/scenario"
	"github.com/google/go-cmp/cmp"
)

// runIncidentVariant runs one variant of the embedded incident scenario
// with the event log.
func runIncidentVariant(t *testing.T, name string) (*scenario.Scenario, *World) {
	t.Helper()
	base, err := scenario.LoadScenario("incident-0214")
	if err != nil {
		t.Fatal(err)
	}
	v, err := base.Variant(name)
	if err != nil {
		t.Fatal(err)
	}
	return v.Scenario, runWorld(t, v.Scenario, v.Policy, Options{Seed: 1, Log: true}, nil)
}

// TestIncidentBothWays: the incident happens with no guard, and does not
// with a separate organisation or the circuit breaker; the virtual key
// alone protects production only while the pool does not bind.
func TestIncidentBothWays(t *testing.T) {
	for _, tc := range []struct {
		variant string
		outage  bool
	}{
		{"no-guard", true},
		{"separate-org", false},
		{"circuit-breaker", false},
		{"virtual-key", false},
		{"virtual-key-pool-binds", true},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			_, w := runIncidentVariant(t, tc.variant)
			p := w.Production()[0]
			// Outage minutes recomputed from the event log: per minute,
			// production calls answered vs given up.
			answered, failed := map[int64]int{}, map[int64]int{}
			for _, r := range w.Log() {
				if r.Job >= 0 {
					continue
				}
				switch r.Event {
				case LogCallAnswer:
					answered[int64(r.T/Minute)]++
				case LogCallFail:
					failed[int64(r.T/Minute)]++
				}
			}
			var outage int64
			for m, f := range failed {
				if float64(answered[m])/float64(answered[m]+f) < scenario.DefaultOutageThreshold {
					outage++
				}
			}
			if diff := cmp.Diff(outage, p.OutageMinutes); diff != "" {
				t.Errorf("outage minutes, log vs recorder (-want +got):\n%s", diff)
			}
			if got := p.OutageMinutes > 0; got != tc.outage {
				t.Errorf("outage minutes %d: want outage %v", p.OutageMinutes, tc.outage)
			}
		})
	}
}

// TestQuotaWindowsNeverServeAboveLimit checks, from the event log, that no
// window of any dimension ever holds more accepted tries than its limit, at
// organisation and virtual-key level, in every variant of the incident;
// under admission "under_limit", that no try was let into a window already
// at its limit.
func TestQuotaWindowsNeverServeAboveLimit(t *testing.T) {
	base, err := scenario.LoadScenario("incident-0214")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range base.VariantNames() {
		t.Run(name, func(t *testing.T) {
			sc, w := runIncidentVariant(t, name)
			orgOf := map[int32]string{}
			for i, o := range sc.Organisations {
				orgOf[int32(i)] = o.Name
				checkWindows(t, "org "+o.Name, acceptedBy(w.Log(), func(r LogRecord) bool { return r.Org == int32(i) }), o.Limits(), o.DailyReset != nil, scenario.UnderLimit(o.Admission))
			}
			keyOf := map[int32]string{}
			for i, m := range sc.ModelConfigs() {
				keyOf[int32(i)] = m.EvalKey
			}
			for _, k := range sc.Keys {
				checkWindows(t, "key "+k.Name, acceptedBy(w.Log(), func(r LogRecord) bool { return r.Job >= 0 && keyOf[r.Model] == k.Name }), k.Limits(), false, scenario.UnderLimit(k.Admission))
			}
		})
	}
}

type try struct {
	t      Time
	tokens float64
}

func acceptedBy(log []LogRecord, keep func(LogRecord) bool) []try {
	var out []try
	for _, r := range log {
		if r.Event == LogCallAccept && keep(r) {
			out = append(out, try{r.T, float64(r.Tokens)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].t < out[j].t })
	return out
}

// checkWindows slides each quota's window over the accepted tries (two
// pointers, independent of quota.go) and fails at the first that the rule
// forbids: the window above its limit with the try (fit), or already at its
// limit before it (underLimit). The log holds the run's tries only, not the
// declared history, so its count is a lower bound of the pool's.
func checkWindows(t *testing.T, who string, tries []try, limits [scenario.NumDims]float64, fixedDaily, underLimit bool) {
	t.Helper()
	spans := [scenario.NumDims]Time{Minute, Minute, 24 * Hour, 24 * Hour}
	for d, limit := range limits {
		if limit == 0 || (fixedDaily && spans[d] == 24*Hour) {
			continue // a fixed window is checked per day by TestDailyWindowReopens
		}
		sum, lo := 0.0, 0
		for _, x := range tries {
			amt := 1.0
			if d == scenario.DimTPM || d == scenario.DimTPD {
				amt = x.tokens
			}
			sum += amt
			for tries[lo].t+spans[d] <= x.t {
				if d == scenario.DimTPM || d == scenario.DimTPD {
					sum -= tries[lo].tokens
				} else {
					sum--
				}
				lo++
			}
			if underLimit {
				if before := sum - amt; before >= limit-1e-6 {
					t.Fatalf("%s: %s window at %v let a try in holding %.0f >= limit %.0f", who, scenario.DimNames[d], x.t.Duration(), before, limit)
				}
			} else if sum > limit+1e-6 {
				t.Fatalf("%s: %s window ending at %v serves %.0f > limit %.0f", who, scenario.DimNames[d], x.t.Duration(), sum, limit)
			}
		}
	}
}

// TestIncidentAdmissionRule: after the daily limit is crossed, who gets the
// room that yesterday's ageing minutes free depends on the admission rule.
// Under "under_limit" (the incident's) the first try after room frees takes
// it, and the eval's 50 retrying workers knock far more often than night
// production: production tries after the crossing are nearly all rejected,
// as the source says. Under "fit" (variant fit-admission) the small
// production calls fit into room the eval's large ones cannot use, and
// production keeps getting through. Shares are counted from the event log.
func TestIncidentAdmissionRule(t *testing.T) {
	for _, tc := range []struct {
		variant  string
		starved  bool
		minTries int
	}{
		{"no-guard", true, 200},
		{"fit-admission", false, 100},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			_, w := runIncidentVariant(t, tc.variant)
			crossing := Time(-1) // first evaluation try rejected by the org's quota
			for _, r := range w.Log() {
				if r.Event == LogCall429 && r.Job >= 0 {
					crossing = r.T
					break
				}
			}
			if crossing < 0 {
				t.Fatal("the evaluation was never rejected: the daily limit was not crossed")
			}
			accepted, rejected := 0, 0
			for _, r := range w.Log() {
				if r.Job >= 0 || r.T < crossing+Minute {
					continue
				}
				switch r.Event {
				case LogCallAccept:
					accepted++
				case LogCall429:
					rejected++
				}
			}
			if accepted+rejected < tc.minTries {
				t.Fatalf("only %d production tries after the crossing at %v", accepted+rejected, crossing.Duration())
			}
			share := float64(accepted) / float64(accepted+rejected)
			if starved := share < 0.2; starved != tc.starved || (!tc.starved && share < 0.8) {
				t.Errorf("production tries accepted after the crossing at %v: %d of %d (%.0f%%), want starved=%v", crossing.Duration(), accepted, accepted+rejected, 100*share, tc.starved)
			}
		})
	}
}
