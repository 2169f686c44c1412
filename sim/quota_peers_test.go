package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/scenario"
)

// TestOrgPeersAgainstBruteForce: orgPeers walks the models of an
// organisation (orgModels, listed once) instead of the catalogue; with
// random tries, decisions and running jobs on every model of the default
// scenario, its answer for every model billed to an organisation must be
// the brute force's (every model in catalogue order whose evaluation
// calls bill to the same organisation and with tries in the closed
// window).
func TestOrgPeersAgainstBruteForce(t *testing.T) {
	sc, err := scenario.LoadScenario(scenario.DefaultScenario)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, sc, "scheduler", Options{Seed: 1})
	brute := func(m int) []int {
		var peers []int
		for j := range w.prov.models {
			if w.prov.models[j].evalOrg == w.prov.models[m].evalOrg && w.gw.closed(int32(j)).tries > 0 {
				peers = append(peers, w.Running(policies.ModelID(j)))
			}
		}
		return peers
	}
	rng := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for step := range 50 {
		for j := range w.prov.models {
			w.load[j].running = rng.IntN(20)
			for range rng.IntN(3) {
				w.gw.tried(int32(j))
			}
		}
		w.gw.closeSignals()
		for m := range w.prov.models {
			if w.prov.models[m].evalOrg < 0 {
				continue
			}
			want := brute(m)
			if got := w.orgPeers(policies.ModelID(m)); !slices.Equal(got, want) {
				t.Fatalf("step %d, model %d: peers %v, brute force %v", step, m, got, want)
			}
			checked++
		}
	}
	if orgs := len(w.prov.orgs); checked == 0 || orgs < 2 {
		t.Fatalf("%d checks over %d organisations: the test needs models on several", checked, orgs)
	}
}
