package fastmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// referenceExp is Exp with its range check on x itself, the plain form
// of the check Exp makes on n.
func referenceExp(x float64) float64 {
	if !(x > -708 && x < 709) {
		return math.Exp(x)
	}
	kf := x*(64/math.Ln2) + roundShift
	n := int64(math.Float64bits(kf) - math.Float64bits(roundShift))
	kf -= roundShift
	r := x - kf*ln2Hi64 - kf*ln2Lo64
	q := r + r*r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120))))
	t := exp2Table[n&63]
	scale := math.Float64frombits(uint64(1023+(n>>6)) << 52)
	return (t + t*q) * scale
}

// expN is the n that Exp computes for x.
func expN(x float64) int64 {
	kf := x*(64/math.Ln2) + roundShift
	return int64(math.Float64bits(kf) - math.Float64bits(roundShift))
}

// TestExpRangeWindow: the window of n that skips the check on x is one
// inside the n of the range's ends, so every x that lands in it is in
// the range (the rounding is monotone in x), and its edges are the n of
// some x in range.
func TestExpRangeWindow(t *testing.T) {
	if n := expN(-708); n != expMinN-1 {
		t.Errorf("n(-708) = %d, want expMinN-1 = %d", n, expMinN-1)
	}
	if n := expN(709); n != expMaxN+1 {
		t.Errorf("n(709) = %d, want expMaxN+1 = %d", n, expMaxN+1)
	}
	if n := expN(math.Nextafter(-708, 0)); n < expMinN-1 {
		t.Errorf("n just above -708 = %d", n)
	}
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64, 1e14, -1e14, 2.5e13, -2.5e13} {
		if n := expN(x); n >= expMinN && n <= expMaxN {
			t.Errorf("n(%g) = %d falls in the window", x, n)
		}
	}
}

// TestExpMatchesReference: Exp is referenceExp bit for bit, over the
// lognormal's arguments, the whole range and beyond, and every float64
// beside the range's ends and the window's.
func TestExpMatchesReference(t *testing.T) {
	check := func(x float64) {
		t.Helper()
		got, want := Exp(x), referenceExp(x)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("Exp(%.17g) = %.17g, reference %.17g", x, got, want)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 2_000_000 {
		check(r.NormFloat64() * 4)
		check((r.Float64()*2 - 1) * 760)
		check(math.Float64frombits(r.Uint64()))
	}
	edges := []float64{-708, 709, 0, math.Copysign(0, -1)}
	for _, n := range []float64{expMinN - 1, expMinN, expMaxN, expMaxN + 1} {
		edges = append(edges, (n-0.5)/(64/math.Ln2), (n+0.5)/(64/math.Ln2))
	}
	for _, e := range edges {
		lo, hi := e, e
		for range 5000 {
			lo, hi = math.Nextafter(lo, math.Inf(-1)), math.Nextafter(hi, math.Inf(1))
			check(lo)
			check(hi)
		}
	}
	for _, x := range []float64{math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, -math.MaxFloat64,
		math.SmallestNonzeroFloat64, -746, -745.1, 709.7, 710, 1e300, -1e300} {
		check(x)
	}
}
