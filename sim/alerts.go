package sim

import (
	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
)

// alerts feeds the quota alert (Scenario.Alert) at every series sample:
// for each organisation production bills to, the evaluation calls' share
// of each of its quota windows.
type alerts struct {
	mon    *policies.AlertMonitor
	shared []bool // per organisation: production bills to it
}

func newAlerts(sc *scenario.Scenario, prov *Provider) alerts {
	if sc.Alert == nil {
		return alerts{}
	}
	a := alerts{mon: policies.NewAlertMonitor(sc.Alert.Share), shared: make([]bool, len(prov.orgs))}
	index := map[string]int32{}
	for i, m := range sc.Catalogue() {
		index[m] = int32(i)
	}
	for _, p := range sc.Production {
		if org := prov.models[index[p.Model]].org; org >= 0 {
			a.shared[org] = true
		}
	}
	return a
}

// observe takes one reading of every shared organisation's quotas.
func (w *World) observeAlerts() {
	a := &w.alerts
	if a.mon == nil {
		return
	}
	now := w.now()
	for o, shared := range a.shared {
		if !shared {
			continue
		}
		pool := &w.prov.orgs[o]
		_, eval := pool.dimUse(now, srcEval)
		for i := range pool.windows {
			d := pool.windows[i].dim
			a.mon.Observe(now.Wall(), w.sc.Organisations[o].Name, scenario.DimNames[d], eval[d])
		}
	}
}

// Alerts is the alert's episode log (nil without Scenario.Alert).
func (w *World) Alerts() []results.AlertEpisode {
	if w.alerts.mon == nil {
		return nil
	}
	billed := map[string][]string{} // organisation → models whose eval calls bill to it
	for i, m := range w.sc.Catalogue() {
		if o := w.prov.models[i].evalOrg; o >= 0 {
			name := w.sc.Organisations[o].Name
			billed[name] = append(billed[name], m)
		}
	}
	var out []results.AlertEpisode
	for _, e := range w.alerts.mon.Episodes(w.end.Wall()) {
		out = append(out, results.AlertEpisode{Start: e.Start.Sub(Epoch).Seconds(), End: e.End.Sub(Epoch).Seconds(),
			Key: e.Key, Dimension: e.Dim, PeakShare: e.Peak, Models: billed[e.Key]})
	}
	return out
}

// GuardStats is what the policy's guards did (nil without guards).
func (w *World) GuardStats() *results.GuardStats {
	g, ok := w.pol.(*policies.Guard)
	if !ok {
		return nil
	}
	s := g.Stats()
	return &results.GuardStats{DeferredTicks: s.DeferredTicks, DeferredSeconds: s.OpenTime.Seconds(), Trips: s.Trips}
}
