package workloads

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"time"
)

// Job is one job as a workload produces it.
type Job struct {
	ID      int64
	Arrival time.Duration // since the start of the run
	Account string
	Project string
	Batch   string
	// Tiers set at each level; 0 = inherit.
	AccountTier, ProjectTier, BatchTier int8
	Model                               int // index into the model catalogue
	Behaviour                           *Behaviour
	Seed                                uint64 // seeds the job's agent loop
	// Judge is the model of the chained grading job, or -1 for none.
	Judge          int
	JudgeBehaviour *Behaviour
}

// Source yields jobs in non-decreasing arrival order, one at a time, so a run
// never holds the whole stream.
type Source interface {
	// Next returns the next job; ok is false at the end of the stream or on error.
	Next() (job Job, ok bool)
	// Err is the error that ended the stream early, if any.
	Err() error
}

// Generator is the lazy synthetic Source. It keeps only the batch being
// emitted and the next arrival time of each process.
type Generator struct {
	cfg     Config
	horizon time.Duration
	// The arrivals stream: nothing else draws from it. src is
	// rand.PCG's generator (pcg), its hot draws taken directly (unitOf,
	// intN, expDraw: (*rand.Rand)'s formulas without its interface
	// call); rng is src for rand.Zipf.
	rng *rand.Rand
	src *pcg

	models    []string
	hot       []int
	hotCum    []float64 // cumulative hot weights; nil = even
	cold      []int
	zipf      *rand.Zipf
	behaviour []*Behaviour
	mixCum    []float64
	grading   []grading // of behaviour[i]
	classes   map[string]*Behaviour

	// Tiers of accounts and projects, fixed for the run, pins applied.
	accountTier []int8
	projectTier []int8
	pinned      bool // Tiers.Pinned names some level: look batch names up
	// Names of accounts and projects, formatted once (a batch names both).
	accountName []string
	projectName []string

	nextPoisson [2]time.Duration
	burstTimes  [2][]time.Duration // sorted, consumed from the front
	nextBurst   [2]time.Duration   // burstTimes[i][0], MaxInt64 when none
	nextID      int64
	batchSeq    int

	// What a batch draws with, resolved once per run: the account and
	// project picks, the hot model's pick when the draw needs no other
	// (one hot list, no cold models, no weights), and each process's batch
	// size when it is fixed (0: drawn).
	accountPick, projectPick, hotPick picker
	hotOnly                           bool
	fixedSize                         [2]int
	// fixedPicks: one account, one project, no batch tier drawn, one
	// model and one class, so a batch's five draws for them are stepped
	// over at once (picksJump), their values unneeded.
	fixedPicks bool
	picksJump  pcgJump
	// Each process's candidate rate (rate_per_hour × peak) when its
	// profile is flat, every candidate kept: its next arrival is one gap
	// drawn (0: nextArrival draws it).
	flatRate [2]float64

	cur       Job // template of the batch being emitted
	curGrade  *grading
	remaining int
	// The account, project and class whose names, tiers and behaviour are
	// in cur (-1: none).
	curAccount, curProject, curClass int

	// Batch names from namesFrom on, formatted a block at a time; with
	// nameWidth > 0 every name of the block has that many bytes, so the
	// k-th is cut at k·nameWidth and nameEnd is not filled.
	names     string
	namesFrom int
	nameWidth int
	nameEnd   [nameBlock]int32
	nameBuf   []byte
}

// nameBlock is how many batch names are formatted into one string.
const nameBlock = 256

// grading is what the jobs of a behaviour with grading draw a grading job
// with, resolved once per run: the probability, the judge's catalogue
// index and the grading job's behaviour.
type grading struct {
	p         float64
	judge     int
	behaviour *Behaviour
}

// NewGenerator builds a validated generator producing arrivals in [0, horizon).
func NewGenerator(cfg Config, models []string, horizon time.Duration, seed uint64) (*Generator, error) {
	if err := cfg.Validate(models); err != nil {
		return nil, err
	}
	src := newPCG(Stream(seed, "arrivals"), 1)
	g := &Generator{cfg: cfg, horizon: horizon, models: models, src: src, rng: rand.New(src), cur: Job{Judge: -1},
		curAccount: -1, curProject: -1, curClass: -1}
	index := make(map[string]int, len(models))
	for i, m := range models {
		index[m] = i
	}
	isHot := make(map[int]bool) // hot or excluded: not in the Zipf draw
	cum := 0.0
	for i, h := range cfg.Models.Hot {
		g.hot = append(g.hot, index[h])
		isHot[index[h]] = true
		if len(cfg.Models.HotWeights) > 0 {
			cum += cfg.Models.HotWeights[i]
			g.hotCum = append(g.hotCum, cum)
		}
	}
	for _, e := range cfg.Models.Exclude {
		isHot[index[e]] = true
	}
	for i := range models {
		if !isHot[i] {
			g.cold = append(g.cold, i)
		}
	}
	if len(g.cold) > 1 {
		g.zipf = rand.NewZipf(g.rng, cfg.Models.ZipfS, 1, uint64(len(g.cold)-1))
	}
	classes, err := BehaviourClasses(cfg)
	if err != nil {
		return nil, err
	}
	g.classes = classes
	names := slices.Sorted(maps.Keys(classes))
	mix := cfg.BehaviourMix
	if len(mix) == 0 {
		mix = map[string]float64{}
		for _, name := range names {
			mix[name] = 1
		}
	}
	judgeOf := GradingBehaviours(classes)
	cum = 0.0
	for _, name := range slices.Sorted(maps.Keys(mix)) {
		cum += mix[name]
		b := classes[name]
		g.behaviour = append(g.behaviour, b)
		g.mixCum = append(g.mixCum, cum)
		var gr grading
		if b.Grading != nil {
			// validated: the judge is in the catalogue
			gr = grading{p: b.Grading.Probability, judge: index[b.Grading.Judge], behaviour: judgeOf[b]}
		}
		g.grading = append(g.grading, gr)
	}
	// Tiers of accounts and projects are fixed for the run.
	g.accountTier = make([]int8, cfg.Accounts)
	for a := range g.accountTier {
		g.accountTier[a] = g.drawTier()
	}
	g.projectTier = make([]int8, cfg.Accounts*cfg.ProjectsPerAccount)
	for p := range g.projectTier {
		if unit(g.src) < cfg.Tiers.ProjectOverride {
			g.projectTier[p] = g.drawTier()
		}
	}
	g.accountName, g.projectName = hierarchyNames(cfg.Accounts, cfg.ProjectsPerAccount)
	for a, name := range g.accountName {
		g.accountTier[a] = pinned(cfg.Tiers.Pinned, name, g.accountTier[a])
	}
	for p, name := range g.projectName {
		g.projectTier[p] = pinned(cfg.Tiers.Pinned, name, g.projectTier[p])
	}
	g.pinned = len(cfg.Tiers.Pinned) > 0
	g.accountPick, g.projectPick = newPicker(cfg.Accounts), newPicker(cfg.ProjectsPerAccount)
	g.hotPick = newPicker(len(g.hot))
	g.hotOnly = len(g.hot) > 0 && len(g.cold) == 0 && g.hotCum == nil
	g.fixedPicks = cfg.Accounts == 1 && cfg.ProjectsPerAccount == 1 && !(cfg.Tiers.BatchOverride > 0) &&
		len(g.hot) == 1 && len(g.cold) == 0 && len(g.behaviour) == 1
	g.picksJump = newPCGJump(5)
	for i, bp := range []*BatchProcess{&g.cfg.Batches, &g.cfg.Background} {
		if bp.Size.s.kind == kindFixed {
			g.fixedSize[i] = atLeastOne(bp.Size.s.a)
		}
		if p := &bp.Profile; bp.RatePerHour > 0 && p.hourly == nil && p.weekday == nil && p.peak == 1 {
			g.flatRate[i] = bp.RatePerHour * p.peak
		}
	}
	for i, bp := range []*BatchProcess{&cfg.Batches, &cfg.Background} {
		g.nextPoisson[i] = g.nextArrival(bp, 0)
		for _, b := range bp.Bursts {
			for k := 0; k < b.Batches; k++ {
				g.burstTimes[i] = append(g.burstTimes[i], b.At+time.Duration(unit(g.src)*float64(b.Spread)))
			}
		}
		sort.Slice(g.burstTimes[i], func(a, b int) bool { return g.burstTimes[i][a] < g.burstTimes[i][b] })
		g.popBurst(i, 0)
	}
	return g, nil
}

// Classes is the generator's behaviour classes by name: the pointers its
// jobs carry (see ClassNames for the inverse a trace writer takes).
func (g *Generator) Classes() map[string]*Behaviour { return g.classes }

// UniqueBatches is true: every batch has a name of its own (BatchName) and
// its jobs come one after another, so a consumer can tell batches apart
// without looking names up.
func (g *Generator) UniqueBatches() bool { return true }

// Err is always nil: a validated generator cannot fail.
func (g *Generator) Err() error { return nil }

// Next returns the next job in arrival order: fill of one job.
func (g *Generator) Next() (Job, bool) {
	var one [1]Job
	if b, _ := g.fill(one[:0]); len(b) > 0 {
		return b[0], true
	}
	return Job{}, false
}

// fill appends the next jobs to b up to its capacity; ended is true when
// the stream ended first. Each job is its batch's template (cur),
// numbered, with its seed and its grading draw, written in place
// (Prefetched reads a Generator so, without a copy of each job on the
// way to the block), one job a pass: a batch of one (the M/M/c lab's
// every batch) sets nothing up for its run of jobs.
func (g *Generator) fill(b []Job) (_ []Job, ended bool) {
	src := g.src
	for n := len(b); n < cap(b); n++ {
		if g.remaining == 0 && !g.startBatch() {
			return b, true
		}
		g.remaining--
		b = b[:n+1]
		job := &b[n]
		*job = g.cur
		job.ID = g.nextID
		g.nextID++
		job.Seed = src.Uint64()
		if gr := g.curGrade; gr != nil && unitOf(src.Uint64()) < gr.p {
			job.Judge = gr.judge
			job.JudgeBehaviour = gr.behaviour
		}
	}
	return b, false
}

// startBatch picks the process with the earliest next batch and draws it.
func (g *Generator) startBatch() bool {
	// Ties go to the first process, and within one to its Poisson arrival.
	best, bestAt, fromBurst := 0, g.nextPoisson[0], false
	if g.nextBurst[0] < bestAt {
		bestAt, fromBurst = g.nextBurst[0], true
	}
	if g.nextPoisson[1] < bestAt {
		best, bestAt, fromBurst = 1, g.nextPoisson[1], false
	}
	if g.nextBurst[1] < bestAt {
		best, bestAt, fromBurst = 1, g.nextBurst[1], true
	}
	if bestAt >= g.horizon {
		return false
	}
	bp := &g.cfg.Batches
	if best == 1 {
		bp = &g.cfg.Background
	}
	src := g.src
	if fromBurst {
		g.popBurst(best, 1)
	} else if rate := g.flatRate[best]; rate > 0 {
		// nextArrival's one candidate, kept (a flat profile), its gap
		// drawn as poissonGap draws it (expDraw, its strip inline)
		u := src.Uint64()
		x, ok := zigExpStrip(u)
		if !ok {
			x = zigExpFrom(src, u)
		}
		t := bestAt + time.Duration(x/rate*float64(time.Hour))
		if t >= g.horizon || t < bestAt {
			t = math.MaxInt64
		}
		g.nextPoisson[best] = t
	} else {
		g.nextPoisson[best] = g.nextArrival(bp, bestAt)
	}
	var account, project, model, k int
	var batchTier int8
	if g.fixedPicks {
		src.jump(&g.picksJump)
		model = g.hot[0]
	} else {
		account, project, batchTier, model, k = g.picks(src)
	}
	project += account * g.cfg.ProjectsPerAccount
	g.batchSeq++
	var batchName string
	if k, w := g.batchSeq-g.namesFrom, g.nameWidth; w > 0 && uint(k) < nameBlock {
		batchName = g.names[k*w : k*w+w] // batchName's cut, without the call
	} else {
		batchName = g.batchName(g.batchSeq)
	}
	if g.pinned {
		batchTier = pinned(g.cfg.Tiers.Pinned, batchName, batchTier)
	}
	// Field by field: ID and Seed are fill's, Judge stays -1 and
	// JudgeBehaviour nil (NewGenerator), and a composite literal would be
	// built aside and copied. Names and tiers of the account and project,
	// and the class's behaviour and grading, are written when they change.
	c := &g.cur
	c.Arrival = bestAt
	if account != g.curAccount {
		g.curAccount = account
		c.Account, c.AccountTier = g.accountName[account], g.accountTier[account]
	}
	if project != g.curProject {
		g.curProject = project
		c.Project, c.ProjectTier = g.projectName[project], g.projectTier[project]
	}
	c.Batch, c.BatchTier = batchName, batchTier
	c.Model = model
	if k != g.curClass {
		g.curClass = k
		b := g.behaviour[k]
		c.Behaviour = b
		g.curGrade = nil
		if b.Grading != nil {
			g.curGrade = &g.grading[k]
		}
	}
	if n := g.fixedSize[best]; n > 0 {
		g.remaining = n
	} else {
		g.remaining = atLeastOne(bp.Size.Sample(src))
	}
	return true
}

// picks draws a batch's account, its project within the account, its
// tier (before pins: 0 unless drawn) and the indexes of its model and
// its class, in that order.
func (g *Generator) picks(src *pcg) (account, project int, tier int8, model, class int) {
	if p := &g.accountPick; p.pow2 {
		account = int(src.Uint64() & p.mask)
	} else {
		account = p.draw(src)
	}
	if p := &g.projectPick; p.pow2 {
		project = int(src.Uint64() & p.mask)
	} else {
		project = p.draw(src)
	}
	if unitOf(src.Uint64()) < g.cfg.Tiers.BatchOverride {
		tier = g.drawTier()
	}
	if g.hotOnly {
		// drawModel's draws when no cold model competes
		if p := &g.hotPick; p.pow2 {
			model = g.hot[src.Uint64()&p.mask]
		} else {
			model = g.hot[p.draw(src)]
		}
	} else {
		model = g.drawModel()
	}
	if len(g.mixCum) == 1 {
		src.Uint64() // drawBehaviour's draw: one class, whatever it is
	} else {
		class = g.drawBehaviour()
	}
	return account, project, tier, model, class
}

// popBurst drops the first n of process i's burst times and notes the
// next one in nextBurst.
func (g *Generator) popBurst(i, n int) {
	g.burstTimes[i] = g.burstTimes[i][n:]
	g.nextBurst[i] = math.MaxInt64
	if len(g.burstTimes[i]) > 0 {
		g.nextBurst[i] = g.burstTimes[i][0]
	}
}
