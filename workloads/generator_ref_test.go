package workloads

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// refGenerator is the generator's stream drawn the plain way, the
// reference its shortcuts are checked against: (*rand.Rand)'s draws on
// the arrivals stream, every candidate arrival tested against the
// profile, fmt's batch names, each job built whole from its batch's
// draws. The run's fixed state (tiers, names, models, burst times) is
// set up by NewGenerator on a generator of its own, whose stream it
// then draws from.
type refGenerator struct {
	g         *Generator
	rng       *rand.Rand
	poisson   [2]time.Duration
	bursts    [2][]time.Duration
	seq       int
	nextID    int64
	batch     Job
	grade     *grading
	remaining int
}

func newRefGenerator(t *testing.T, cfg Config, models []string, horizon time.Duration, seed uint64) *refGenerator {
	t.Helper()
	g, err := NewGenerator(cfg, models, horizon, seed)
	if err != nil {
		t.Fatal(err)
	}
	r := &refGenerator{g: g, rng: g.rng, poisson: g.nextPoisson}
	for i := range r.bursts {
		r.bursts[i] = append([]time.Duration(nil), g.burstTimes[i]...)
	}
	return r
}

func (r *refGenerator) arrival(bp *BatchProcess, from time.Duration) time.Duration {
	if bp.RatePerHour <= 0 {
		return math.MaxInt64
	}
	peak := bp.Profile.peak
	for t := from; ; {
		t += time.Duration(r.rng.ExpFloat64() / (bp.RatePerHour * peak) * float64(time.Hour))
		if t >= r.g.horizon || t < from {
			return math.MaxInt64
		}
		if f := bp.Profile.factor(t); f == peak || r.rng.Float64()*peak < f {
			return t
		}
	}
}

func (r *refGenerator) tier() int8 {
	w := r.g.cfg.Tiers.Account
	if len(w) == 0 {
		return 0
	}
	total := 0.0
	for _, x := range w {
		total += x
	}
	u := r.rng.Float64() * total
	for i, x := range w {
		if u < x {
			return int8(i + 1)
		}
		u -= x
	}
	return int8(len(w))
}

func (r *refGenerator) model() int {
	g := r.g
	if len(g.hot) > 0 && (len(g.cold) == 0 || r.rng.Float64() < g.cfg.Models.HotShare) {
		if g.hotCum == nil {
			return g.hot[r.rng.IntN(len(g.hot))]
		}
		u := r.rng.Float64() * g.hotCum[len(g.hotCum)-1]
		i := sort.Search(len(g.hotCum), func(i int) bool { return u < g.hotCum[i] })
		return g.hot[min(i, len(g.hot)-1)]
	}
	if g.zipf == nil {
		return g.cold[0]
	}
	return g.cold[g.zipf.Uint64()]
}

func (r *refGenerator) startBatch() bool {
	g := r.g
	best, at, burst := -1, time.Duration(math.MaxInt64), false
	for i := range 2 {
		if r.poisson[i] < at {
			best, at, burst = i, r.poisson[i], false
		}
		if len(r.bursts[i]) > 0 && r.bursts[i][0] < at {
			best, at, burst = i, r.bursts[i][0], true
		}
	}
	if best < 0 || at >= g.horizon {
		return false
	}
	bp := []*BatchProcess{&g.cfg.Batches, &g.cfg.Background}[best]
	if burst {
		r.bursts[best] = r.bursts[best][1:]
	} else {
		r.poisson[best] = r.arrival(bp, at)
	}
	account := r.rng.IntN(g.cfg.Accounts)
	project := account*g.cfg.ProjectsPerAccount + r.rng.IntN(g.cfg.ProjectsPerAccount)
	r.seq++
	name := fmt.Sprintf("b%07d", r.seq)
	var batchTier int8
	if r.rng.Float64() < g.cfg.Tiers.BatchOverride {
		batchTier = r.tier()
	}
	if t, ok := g.cfg.Tiers.Pinned[name]; ok {
		batchTier = int8(t)
	}
	model := r.model()
	u := r.rng.Float64() * g.mixCum[len(g.mixCum)-1]
	k := len(g.behaviour) - 1
	for i, c := range g.mixCum {
		if u < c {
			k = i
			break
		}
	}
	r.batch = Job{Arrival: at, Account: g.accountName[account], Project: g.projectName[project], Batch: name,
		AccountTier: g.accountTier[account], ProjectTier: g.projectTier[project], BatchTier: batchTier,
		Model: model, Behaviour: g.behaviour[k], Judge: -1}
	r.grade = nil
	if g.behaviour[k].Grading != nil {
		r.grade = &g.grading[k]
	}
	r.remaining = atLeastOne(bp.Size.Sample(r.g.src))
	return true
}

func (r *refGenerator) Next() (Job, bool) {
	if r.remaining == 0 && !r.startBatch() {
		return Job{}, false
	}
	r.remaining--
	job := r.batch
	job.ID = r.nextID
	r.nextID++
	job.Seed = r.rng.Uint64()
	if r.grade != nil && r.rng.Float64() < r.grade.p {
		job.Judge, job.JudgeBehaviour = r.grade.judge, r.grade.behaviour
	}
	return job, true
}

func (r *refGenerator) Err() error { return nil }

// generatorCases are configurations that take each of the generator's
// paths: power-of-two and other picks, one hot model alone, hot weights,
// Zipf, pins at every level, batch tiers, fixed and drawn sizes, one
// class or several, grading, profiles, bursts, both processes.
func generatorCases() map[string]struct {
	cfg    Config
	models []string
} {
	// one account, project, model and class: an M/M/c queue's
	mmc := Config{Accounts: 1, ProjectsPerAccount: 1, Models: ModelMix{Hot: []string{"m-a"}, HotShare: 1},
		Background: BatchProcess{RatePerHour: 36000, Size: Fixed(1)},
		Behaviours: map[string]Behaviour{"one": {}}}
	pow2 := testConfig()
	pow2.Accounts, pow2.ProjectsPerAccount = 4, 2
	pow2.Models = ModelMix{Hot: []string{"m-a", "m-b", "m-c", "m-d"}, HotShare: 1, Exclude: []string{"m-e", "judge"}}
	pow2.Tiers.Pinned = map[string]int{"b0000003": 2, "acct-002/p01": 3}
	pow2.Background.Size = Fixed(3)
	weighted := testConfig()
	weighted.Models.HotWeights = []float64{3, 1}
	weighted.Tiers.Account = nil
	odd := testConfig()
	odd.Models = ModelMix{Hot: []string{"m-a", "m-b", "m-c"}, HotShare: 1, Exclude: []string{"m-d", "m-e", "judge"}}
	odd.Batches.Bursts = append(odd.Batches.Bursts, Burst{At: 30 * time.Minute, Batches: 4})
	cold := testConfig()
	cold.Models = ModelMix{ZipfS: 1.2}
	hourly := make([]float64, 24)
	for h := range hourly {
		hourly[h] = 1 + float64(h%5)
	}
	profiled := profiledConfig(400, Profile{Hourly: hourly, Weekday: []float64{1, 2, 3, 1, 1, 0.5, 0.5}, Start: 30 * time.Hour})
	profiled.Background = BatchProcess{RatePerHour: 100, Size: Fixed(1), Profile: Profile{Hourly: hourly}}
	return map[string]struct {
		cfg    Config
		models []string
	}{
		"test":      {testConfig(), testCatalogue},
		"generator": {generatorConfig(), profileModels},
		"mmc":       {mmc, []string{"m-a"}}, // every pick fixed (fixedPicks)
		"mmc-cold":  {mmc, testCatalogue},
		"pow2":      {pow2, testCatalogue},
		"weighted":  {weighted, testCatalogue},
		"odd":       {odd, testCatalogue},
		"cold":      {cold, testCatalogue},
		"profiled":  {profiled, profileModels},
	}
}

// TestGeneratorMatchesReference: the generator's stream, read job by job
// and a block at a time (fill), is the plain reference's, job for job.
func TestGeneratorMatchesReference(t *testing.T) {
	for name, c := range generatorCases() {
		t.Run(name, func(t *testing.T) {
			const horizon = 3 * time.Hour
			ref := newRefGenerator(t, c.cfg, c.models, horizon, 7)
			want := classesOf(drain(t, ref), ref.g)
			if len(want) < 1000 {
				t.Fatalf("only %d jobs", len(want))
			}
			g, err := NewGenerator(c.cfg, c.models, horizon, 7)
			if err != nil {
				t.Fatal(err)
			}
			if name == "mmc" && !g.fixedPicks {
				t.Fatal("the M/M/c case does not take the fixed picks")
			}
			compareJobs(t, "Next", want, classesOf(drain(t, g), g))
			g, _ = NewGenerator(c.cfg, c.models, horizon, 7)
			var got []Job
			for ended := false; !ended; {
				var b []Job
				b, ended = g.fill(make([]Job, 0, 37))
				got = append(got, b...)
			}
			compareJobs(t, "fill", want, classesOf(got, g))
		})
	}
}

// classesOf replaces the jobs' behaviours by one pointer per class name,
// shared by every stream compared (each generator has behaviours of its
// own).
func classesOf(jobs []Job, g *Generator) []Job {
	names := ClassNames(g.Classes())
	for i := range jobs {
		j := &jobs[i]
		j.Behaviour = canonicalClass(names[j.Behaviour])
		if j.JudgeBehaviour != nil {
			j.JudgeBehaviour = canonicalClass(names[j.JudgeBehaviour])
		}
	}
	return jobs
}

var canonicalClasses = map[string]*Behaviour{}

func canonicalClass(name string) *Behaviour {
	b := canonicalClasses[name]
	if b == nil {
		b = new(Behaviour) // "" stands for the generator's unnamed single call
		canonicalClasses[name] = b
	}
	return b
}

func compareJobs(t *testing.T, how string, want, got []Job) {
	t.Helper()
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			t.Fatalf("%s: job %d differs (-want +got):\n%s", how, i, cmp.Diff(want[i], got[i]))
		}
	}
	if len(want) != len(got) {
		t.Fatalf("%s: %d jobs, want %d", how, len(got), len(want))
	}
}
