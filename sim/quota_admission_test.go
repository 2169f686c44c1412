package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/evalsched/lab/scenario"
)

// naiveWindow recomputes a rolling window's count from every try admitted
// so far: the brute-force reading of both admission rules.
type naiveWindow struct {
	limit      float64
	span       Time
	underLimit bool
	tries      []naiveTry
}

// naiveTry is an admitted try as the brute force keeps it.
type naiveTry struct {
	t     Time
	amt   float64
	model int32
}

func (n *naiveWindow) sum(now Time) float64 {
	s := 0.0
	for _, e := range n.tries {
		if e.t+n.span > now {
			s += e.amt
		}
	}
	return s
}

// modelSum is the window's count of model's tries at now.
func (n *naiveWindow) modelSum(now Time, model int32) float64 {
	s := 0.0
	for _, e := range n.tries {
		if e.t+n.span > now && e.model == model {
			s += e.amt
		}
	}
	return s
}

func (n *naiveWindow) lets(sum, amt float64) bool {
	if n.underLimit {
		return sum < n.limit
	}
	return sum+amt <= n.limit
}

// wait scans forward over the instants at which an entry ages out (the only
// instants at which the answer can change) for the first that lets amt in.
func (n *naiveWindow) wait(now Time, amt float64) Time {
	if !n.underLimit && amt > n.limit {
		return -1
	}
	if n.lets(n.sum(now), amt) {
		return 0
	}
	for _, e := range n.tries { // in admission order, so in time order
		if at := e.t + n.span; at > now && n.lets(n.sum(at), amt) {
			return at - now
		}
	}
	return n.span
}

// TestAdmissionRulesBruteForce drives a TPM window with random tries of
// mixed sizes under both admission rules and checks every decision and
// retry-after against the brute-force window; then checks what tells the
// rules apart: under "fit" the count never passes the limit, under
// "under_limit" it passes by less than one try, and a large try gets in
// only under "under_limit" when the window is nearly full. Each try belongs
// to one of three models, and every model's own share of the window (what a
// scheduler reads before a raise) is checked against the brute force too.
func TestAdmissionRulesBruteForce(t *testing.T) {
	for _, under := range []bool{false, true} {
		t.Run(fmt.Sprintf("under_limit=%v", under), func(t *testing.T) {
			const limit = 1000.0
			const models = 3
			p := newQuotaPool(poolSpec{limits: [scenario.NumDims]float64{scenario.DimTPM: limit}, underLimit: under, models: models})
			ref := naiveWindow{limit: limit, span: Minute, underLimit: under}
			rng := rand.New(rand.NewPCG(7, 9))
			now, maxSum, bigAdmittedNearFull := Time(0), 0.0, false
			for i := 0; i < 4000; i++ {
				now += Time(rng.IntN(int(2 * Second)))
				amt := float64(1 + rng.IntN(30))
				if rng.IntN(10) == 0 {
					amt = float64(300 + rng.IntN(400)) // a large try
				}
				before := ref.sum(now)
				wantWait := ref.wait(now, amt)
				model := int32(rng.IntN(models))
				for m := range int32(models) {
					got, want := p.modelUse(now, m)[scenario.DimTPM]*limit, ref.modelSum(now, m)
					if math.Abs(got-want) > 1e-6 {
						t.Fatalf("try %d at %v: model %d's share of the window %g, brute force %g", i, now.Duration(), m, got, want)
					}
				}
				gotWait, ok := p.admit(now, amt, srcEval, model)
				if ok {
					gotWait = 0
				}
				if gotWait != wantWait {
					t.Fatalf("try %d (%g tokens at %v, window %g): retry-after %v, brute force %v", i, amt, now.Duration(), before, gotWait.Duration(), wantWait.Duration())
				}
				if ok {
					ref.tries = append(ref.tries, naiveTry{t: now, amt: amt, model: model})
					if amt >= 300 && before+amt > limit {
						bigAdmittedNearFull = true
					}
				}
				maxSum = max(maxSum, ref.sum(now))
			}
			if !under && maxSum > limit {
				t.Errorf("fit: the window held %g > limit %g", maxSum, limit)
			}
			if under && (maxSum <= limit || maxSum >= limit+700) {
				t.Errorf("under_limit: the window's largest count %g, want in (limit, limit + largest try)", maxSum)
			}
			if bigAdmittedNearFull != under {
				t.Errorf("a large try admitted past the limit: %v, want %v", bigAdmittedNearFull, under)
			}
		})
	}
}
