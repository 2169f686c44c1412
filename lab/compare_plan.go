package lab

import (
	"fmt"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/sim"
)

// ComparePlan is the runs one compare makes: every arm on each seed the
// shard owns, all at once. Only the first seed's runs are written out (its
// series and batches), and only when the shard owns the first seed.
type ComparePlan struct {
	Specs   []sim.RunSpec
	Owned   []int // the owned seeds' offsets from the first seed
	Arms    int
	Written int // how many of Specs (the first) write their rows
}

// PlanCompare lays out arms (the runs of one seed) over seeds seeds from
// first, keeping those shard sh owns.
func PlanCompare(arms []sim.RunSpec, first uint64, seeds int, sh Shard, progress Progress) (ComparePlan, error) {
	seeds = max(1, seeds)
	if sh.N > seeds {
		return ComparePlan{}, fmt.Errorf("--shard %s: more shards than the %d seeds", sh, seeds)
	}
	p := ComparePlan{Arms: len(arms)}
	for k := 0; k < seeds; k++ {
		if sh.Owns(k) {
			p.Owned = append(p.Owned, k)
		}
	}
	var report func(int, sim.Time, sim.Time)
	if progress != nil {
		report = progress(len(arms) * len(p.Owned))
	}
	for _, k := range p.Owned {
		for a, arm := range arms {
			spec := arm
			spec.Seed = first + uint64(k)
			// An arm's seeds cost alike: ExecuteAll starts the costliest
			// arm's first (sim.RunSpec.Class).
			spec.Class = fmt.Sprintf("arm %d", a)
			if report != nil {
				i := len(p.Specs)
				spec.Progress = func(now, end sim.Time) { report(i, now, end) }
			}
			p.Specs = append(p.Specs, spec)
		}
	}
	if len(p.Owned) > 0 && p.Owned[0] == 0 {
		p.Written = len(arms)
	}
	return p, nil
}

// BySeed groups runs, in Specs' order, by owned seed.
func (p ComparePlan) BySeed(runs []results.Run) [][]results.Run {
	out := make([][]results.Run, len(p.Owned))
	for j := range p.Owned {
		out[j] = runs[j*p.Arms : (j+1)*p.Arms]
	}
	return out
}
