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

// referenceLog is Log with its check on the bits of x and its exponent
// unbiased apart: the plain form of what Log computes.
func referenceLog(x float64) float64 {
	b := math.Float64bits(x)
	if b-0x0010000000000000 >= 0x7ff0000000000000-0x0010000000000000 { // not a positive normal
		return math.Log(x)
	}
	j := b >> 45 & 127
	e := int64(b>>52) - 1023
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52)
	c := &logTable[j]
	e += c.bias + 1023 // up
	r := (m - c.c) * c.inv
	p := r * r * (-1.0/2 + r*(1.0/3+r*(-1.0/4+r*(1.0/5+r*(-1.0/6+r*(1.0/7+r*(-1.0/8)))))))
	fe := float64(e)
	return (fe*ln2Hi + c.logC) + (fe*ln2Lo + (r + p))
}

// TestLogMatchesReference: Log is referenceLog bit for bit, over random
// bit patterns (every sign and exponent), values near 1 and beside the
// edges of the normal range.
func TestLogMatchesReference(t *testing.T) {
	check := func(x float64) {
		t.Helper()
		got, want := Log(x), referenceLog(x)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("Log(%.17g) = %.17g, reference %.17g", x, got, want)
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 2_000_000 {
		check(math.Float64frombits(r.Uint64()))
		check(1 + (r.Float64()-0.5)*1e-3)
		check(r.Float64())
	}
	for _, e := range []float64{math.SmallestNonzeroFloat64, 0x1p-1022, math.MaxFloat64, 1, 2, math.Sqrt2} {
		lo, hi := e, e
		for range 1000 {
			check(lo)
			check(hi)
			check(-hi)
			lo, hi = math.Nextafter(lo, 0), math.Nextafter(hi, math.Inf(1))
		}
	}
	for _, x := range []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), -1} {
		check(x)
	}
}
