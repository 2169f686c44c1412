package workloads

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/evalsched/lab/internal/quantile"
)

// TraceStats describes a job trace in one pass and bounded memory: counts
// per model, project, tier and behaviour class, arrivals per time bucket,
// and the calls and tokens each job makes (drawn from its class with its own
// seed, exactly as the simulator draws them).
type TraceStats struct {
	Jobs, Graded int
	First, Last  time.Duration // first and last arrival
	PerModel     []int         // by catalogue index
	PerProject   map[string]int
	PerTier      map[int8]int // effective tier, 0 = none
	PerClass     map[string]int
	Arrivals     Buckets
	CallsPerJob  *Sample
	InputTokens  *Sample // per call
	OutputTokens *Sample // per call
	classNames   map[*Behaviour]string
	agent        Agent
	src          *rand.PCG
}

// NewTraceStats starts statistics over a trace whose jobs name models of a
// catalogue of the given size and classes with the given names; arrivals are
// counted per bucket.
func NewTraceStats(models int, classNames map[*Behaviour]string, bucket time.Duration) *TraceStats {
	return &TraceStats{
		PerModel: make([]int, models), PerProject: map[string]int{}, PerTier: map[int8]int{}, PerClass: map[string]int{},
		Arrivals:    Buckets{Width: bucket},
		CallsPerJob: NewSample(1), InputTokens: NewSample(2), OutputTokens: NewSample(3),
		classNames: classNames, src: rand.NewPCG(0, 0),
	}
}

// Add counts one job.
func (s *TraceStats) Add(j Job) {
	if s.Jobs == 0 {
		s.First = j.Arrival
	}
	s.Last = j.Arrival
	s.Jobs++
	s.PerModel[j.Model]++
	s.PerProject[j.Project]++
	s.PerTier[EffectiveTier(j)]++
	s.Arrivals.Add(j.Arrival)
	if j.Judge >= 0 {
		s.Graded++
	}
	if j.Behaviour.Plan != nil {
		s.PerClass["(plan)"]++
	} else {
		s.PerClass[s.classNames[j.Behaviour]]++
	}
	// The calls this job makes: a plan's, or those its class draws with its
	// seed (the same draws the simulator makes).
	s.agent.Start(j.Behaviour, j.Seed, s.src)
	calls := 0
	for n, ok := s.agent.NextTurn(s.src); ok; n, ok = s.agent.NextTurn(s.src) {
		for k := 0; k < n; k++ {
			in, out, _ := s.agent.NextCall(s.src)
			s.InputTokens.Add(float64(in))
			s.OutputTokens.Add(float64(out))
		}
		calls += n
		s.agent.EndTurn()
	}
	s.CallsPerJob.Add(float64(calls))
}

// EffectiveTier is the tier that applies to a job: priority passes down
// from the account to its projects and batches, a level below raising it
// but never lowering it, so the highest priority (smallest tier) any level
// sets (as policies.Job.EffectiveTier); 0 when none is.
func EffectiveTier(j Job) int8 {
	t := int8(0)
	for _, x := range [3]int8{j.AccountTier, j.ProjectTier, j.BatchTier} {
		if x > 0 && (t == 0 || x < t) {
			t = x
		}
	}
	return t
}

// RequestStats describes a public request trace: requests per bucket and
// tokens per request.
type RequestStats struct {
	Requests     int
	Last         time.Duration
	Arrivals     Buckets
	InputTokens  *Sample
	OutputTokens *Sample
}

// ReadRequestStats reads a whole request trace in the given format.
func ReadRequestStats(path string, format RequestFormat, bucket time.Duration) (*RequestStats, error) {
	src, closer, err := OpenRequestTrace(path, format, ReplayOptions{})
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	s := &RequestStats{Arrivals: Buckets{Width: bucket}, InputTokens: NewSample(1), OutputTokens: NewSample(2)}
	for c, ok := src.Next(); ok; c, ok = src.Next() {
		s.Requests++
		s.Last = c.Arrival
		s.Arrivals.Add(c.Arrival)
		s.InputTokens.Add(float64(c.In))
		s.OutputTokens.Add(float64(c.Out))
	}
	return s, src.Err()
}

// Buckets counts arrivals per fixed-width bucket from time 0.
type Buckets struct {
	Width time.Duration
	N     []int
	// Beyond is the latest arrival past MaxBuckets buckets, 0 if none:
	// such an arrival is not counted, and the caller refuses the width.
	Beyond time.Duration
}

// MaxBuckets bounds the buckets of one Buckets, so a narrow width over a
// long trace (1ns over minutes) cannot take unbounded memory and lines. A
// year (MaxDuration) at the default 10 minutes is 52,560 buckets.
const MaxBuckets = 100_000

// Add counts one arrival at time at.
func (b *Buckets) Add(at time.Duration) {
	if at/b.Width >= MaxBuckets {
		b.Beyond = max(b.Beyond, at)
		return
	}
	i := int(at / b.Width)
	for len(b.N) <= i {
		b.N = append(b.N, 0)
	}
	b.N[i]++
}

// Check refuses a width that needed more than MaxBuckets buckets, naming
// the narrowest round width that fits (flag names the option).
func (b *Buckets) Check(flag string) error {
	if b.Beyond == 0 {
		return nil
	}
	need := b.Beyond/MaxBuckets + 1
	fit := need
	for _, w := range []time.Duration{time.Microsecond, time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond,
		time.Second, 10 * time.Second, time.Minute, 10 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour} {
		if w >= need {
			fit = w
			break
		}
	}
	return fmt.Errorf("%s %v: the arrivals span %v, which needs more than %d buckets (the limit) of %v; use %s %v or wider",
		flag, b.Width, b.Beyond, MaxBuckets, b.Width, flag, fit)
}

// Sample keeps the exact count, sum and maximum of a stream and a uniform
// reservoir sample of it for percentiles, so statistics run in bounded
// memory. Its random stream is its own (seeded), so results are
// reproducible.
type Sample struct {
	N    int64
	Sum  float64
	Max  float64
	keep []float64
	rng  *rand.Rand
}

// SampleReservoir is how many values a Sample keeps for percentiles.
const SampleReservoir = 200000

// NewSample returns an empty sample whose reservoir draws from seed.
func NewSample(seed uint64) *Sample {
	return &Sample{rng: rand.New(rand.NewPCG(seed, 0x7374617473))}
}

// Add adds one value.
func (s *Sample) Add(v float64) {
	s.N++
	s.Sum += v
	s.Max = math.Max(s.Max, v)
	if len(s.keep) < SampleReservoir {
		s.keep = append(s.keep, v)
	} else if k := s.rng.Int64N(s.N); k < SampleReservoir {
		s.keep[k] = v
	}
}

// Mean is the exact mean (NaN when empty).
func (s *Sample) Mean() float64 { return s.Sum / float64(s.N) }

// Sampled reports whether percentiles come from a reservoir sample rather
// than every value.
func (s *Sample) Sampled() bool { return s.N > int64(len(s.keep)) }

// Quantile is the nearest-rank p-quantile of the kept values (exact until
// the reservoir fills); the sample must not be empty.
func (s *Sample) Quantile(p float64) float64 {
	if !slices.IsSorted(s.keep) {
		slices.Sort(s.keep)
	}
	return s.keep[quantile.Rank(len(s.keep), p)]
}
