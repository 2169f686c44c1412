package workloads

import (
	"math"
	"sort"
	"time"
)

// The generator's random draws: picks among fixed choices, the arrival
// processes' gaps, tiers, models and behaviour classes, and the seeds of
// named streams.

// picker draws intN(src, n) for a fixed n: a power of two is a mask of one
// draw, as intN takes it, without the call.
type picker struct {
	n    int
	mask uint64 // n-1 when n is a power of two
	pow2 bool
}

func newPicker(n int) picker {
	return picker{n: n, mask: uint64(n - 1), pow2: n > 0 && n&(n-1) == 0}
}

// draw is the pick. startBatch writes the power-of-two case out by hand
// where it draws: the compiler does not inline draw, and the call would
// cost a third of the draw.
func (p *picker) draw(src *pcg) int {
	if p.pow2 {
		return int(src.Uint64() & p.mask)
	}
	return intN(src, p.n)
}

// unitOf is unit's value of the draw x.
func unitOf(x uint64) float64 { return float64(x<<11>>11) / (1 << 53) }

// Stream derives the seed of a named random stream from the run's seed, so
// each subsystem draws from its own sequence.
func Stream(seed uint64, name string) uint64 {
	h := seed ^ 0x9e3779b97f4a7c15
	for i := 0; i < len(name); i++ {
		h = splitmix(h ^ uint64(name[i]))
	}
	return splitmix(h)
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func (g *Generator) drawTier() int8 {
	w := g.cfg.Tiers.Account
	if len(w) == 0 {
		return 0
	}
	total := 0.0
	for _, x := range w {
		total += x
	}
	u := unit(g.src) * total
	for i, x := range w {
		if u < x {
			return int8(i + 1)
		}
		u -= x
	}
	return int8(len(w))
}

func (g *Generator) poissonGap(ratePerHour float64) time.Duration {
	if ratePerHour <= 0 {
		return math.MaxInt64
	}
	return time.Duration(expDraw(g.src) / ratePerHour * float64(time.Hour))
}

// expDraw is zigExp on the generator's stream.
func expDraw(src *pcg) float64 {
	u := src.Uint64()
	if x, ok := zigExpStrip(u); ok {
		return x
	}
	return zigExpFrom(src, u)
}

// nextArrival is the process's next Poisson arrival after from. With a
// profile it thins a stream at the peak rate: a candidate at t is kept with
// probability factor(t) / peak, drawn only when below 1, so a flat profile
// consumes the same draws as none. Arrivals at or past the horizon end the
// process.
func (g *Generator) nextArrival(bp *BatchProcess, from time.Duration) time.Duration {
	if bp.RatePerHour <= 0 {
		return math.MaxInt64
	}
	p := &bp.Profile
	peak := p.peak
	flat := p.hourly == nil && p.weekday == nil && peak == 1 // factor is 1: every candidate is kept
	for t := from; ; {
		t += g.poissonGap(bp.RatePerHour * peak)
		if t >= g.horizon || t < from {
			return math.MaxInt64
		}
		if flat {
			return t
		}
		if f := p.factor(t); f == peak || unit(g.src)*peak < f {
			return t
		}
	}
}

func pinned(p map[string]int, name string, drawn int8) int8 {
	if t, ok := p[name]; ok {
		return int8(t)
	}
	return drawn
}

func (g *Generator) drawModel() int {
	if len(g.hot) > 0 && (len(g.cold) == 0 || unit(g.src) < g.cfg.Models.HotShare) {
		if g.hotCum == nil {
			return g.hot[intN(g.src, len(g.hot))]
		}
		u := unit(g.src) * g.hotCum[len(g.hotCum)-1]
		i := sort.Search(len(g.hotCum), func(i int) bool { return u < g.hotCum[i] })
		return g.hot[min(i, len(g.hot)-1)]
	}
	if g.zipf == nil {
		return g.cold[0]
	}
	return g.cold[g.zipf.Uint64()]
}

// drawBehaviour is the index in behaviour of the batch's class.
func (g *Generator) drawBehaviour() int {
	u := unit(g.src) * g.mixCum[len(g.mixCum)-1]
	for i, c := range g.mixCum {
		if u < c {
			return i
		}
	}
	return len(g.behaviour) - 1
}
