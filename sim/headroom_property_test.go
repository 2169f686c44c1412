package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/scenario"
)

// TestHeadroomAgainstTheMeter: the reading the headroom rule uses
// (QuotaReading.Use and ModelUse, through dimUse, modelUse and foldPair)
// compares like with like for every meter: a lane alone on a quota,
// running steadily at a share u of its limit, reads a raise factor
// f = (1 − use + own) / own (the rule: use − own + f·own < 1), and the
// meter itself admits the lane at 0.97·f·u of the limit for thirty spans
// without a refusal and refuses it at 1.05·f·u (read at the end of a
// minute: a fixed window read earlier holds part of a minute). Before the reading was
// fixed a token bucket read its deficit (near 0 at a steady rate) and
// allowed raises to about 2.1× at u = 0.9, which the bucket refuses.
func TestHeadroomAgainstTheMeter(t *testing.T) {
	kinds := []struct {
		name  string
		meter scenario.MeterKind
		burst Time
	}{{"rolling", scenario.MeterRolling, 0}, {"fixed", scenario.MeterFixed, 0},
		{"token_bucket", scenario.MeterTokenBucket, 0}, {"token_bucket-burst10s", scenario.MeterTokenBucket, 10 * Second}}
	for _, k := range kinds {
		for seed := uint64(1); seed <= 12; seed++ {
			t.Run(fmt.Sprintf("%s/%d", k.name, seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 0x4ead))
				const limit = 600_000
				u := 0.2 + 0.75*rng.Float64()
				size := float64(500 + rng.IntN(1500)) // tokens a try: input only
				dim := []int{scenario.DimTPM, scenario.DimITPM}[rng.IntN(2)]
				newPool := func() quotaPool {
					spec := poolSpec{models: 1, split: dim == scenario.DimITPM}
					spec.limits[dim] = limit
					spec.meters[dim] = k.meter
					spec.burst[dim] = k.burst.Duration()
					return newQuotaPool(spec)
				}
				// run drives a pool at rate (tokens a minute) for span and
				// counts refusals; it returns the pool.
				run := func(rate float64, span Time) (quotaPool, int) {
					p := newPool()
					gap := Time(size / rate * float64(Minute))
					refused := 0
					for now := Time(0); now < span; now += gap {
						if _, ok := p.admitCost(now, tryCost{in: size}, srcEval, 0); !ok {
							refused++
						}
					}
					return p, refused
				}
				p, refused := run(u*limit, 3*Minute)
				if refused > 0 {
					t.Fatalf("u = %.3f: %d refusals below the limit", u, refused)
				}
				now := 3*Minute - 1 // a fixed window's whole minute, before its reset
				use, _ := p.dimUse(now, srcEval)
				q := policies.QuotaReading{}
				q.Use, q.ModelUse = foldPair(use, p.modelUse(now, 0))
				d := policies.DimTPM
				if q.Use[d] <= 0 || q.ModelUse[d] <= 0 {
					t.Fatalf("reading %+v", q)
				}
				f := (1 - q.Use[d] + q.ModelUse[d]) / q.ModelUse[d]
				if _, r := run(0.97*f*u*limit, 30*Minute); r > 0 {
					t.Errorf("u = %.3f, raise factor %.3f read: the meter refuses %d tries at 0.97 of it", u, f, r)
				}
				// A bucket starts full: a rate 5% above its limit empties a
				// minute's capacity in 20 minutes.
				if _, r := run(1.05*f*u*limit, 30*Minute); r == 0 {
					t.Errorf("u = %.3f, raise factor %.3f read: the meter admits 1.05 of it (the reading leaves room unused)", u, f)
				}
			})
		}
	}
}
