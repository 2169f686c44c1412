package lab

import (
	"maps"
	"slices"
	"sync"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
)

// BaselinePolicy is the policy of a point's baseline arm (PointSpec.Baseline).
const BaselinePolicy = "fixed-lane"

// Baselines keeps the baseline runs made so far, one per seed and per what
// the baseline runs (scenario.Scenario.RunDigest of BaselinePolicy), so that
// points which differ only in settings the baseline does not read (the
// scheduler's, as a sweep or a tune of them) share one baseline run a seed
// instead of each making its own: a sweep of P such points on S seeds runs
// S baselines, not P·S. A run is deterministic in its scenario and seed,
// so the shared run is the one each point would have made. It keeps the
// runs of the last keptBaselineScenarios scenarios it was given, every
// seed's: a tune of settings the baseline reads (a quota) gives it a new
// scenario at every evaluation, and it would otherwise hold every run the
// tune made. It is safe for concurrent use.
type Baselines struct {
	mu    sync.Mutex
	runs  map[baselineRun]results.Run
	order []string // the digests kept, oldest first
}

// keptBaselineScenarios is how many scenarios' baseline runs a Baselines
// keeps.
const keptBaselineScenarios = 4

// baselineRun names one baseline run: its scenario's RunDigest and seed.
type baselineRun struct {
	digest string
	seed   uint64
}

// NewBaselines returns an empty store.
func NewBaselines() *Baselines { return &Baselines{runs: map[baselineRun]results.Run{}} }

func baselineOf(sc *scenario.Scenario, seed uint64) baselineRun {
	return baselineRun{sc.RunDigest(BaselinePolicy), seed}
}

func (b *Baselines) get(k baselineRun) (results.Run, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, ok := b.runs[k]
	return r, ok
}

func (b *Baselines) put(k baselineRun, r results.Run) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !slices.Contains(b.order, k.digest) {
		if len(b.order) == keptBaselineScenarios {
			old := b.order[0]
			b.order = b.order[1:]
			maps.DeleteFunc(b.runs, func(o baselineRun, _ results.Run) bool { return o.digest == old })
		}
		b.order = append(b.order, k.digest)
	}
	b.runs[k] = r
}

// len is the number of baseline runs kept.
func (b *Baselines) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.runs)
}
