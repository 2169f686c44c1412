package fastmath

import "math"

// Exp is e^x: x = (n/64)·ln2 + r with |r| ≤ ln2/128, e^x = 2^(n>>6) ·
// 2^((n&63)/64) · e^r, the middle factor from a table and e^r from its
// Taylor polynomial to r⁵ (the next term is below 4e-17 of the result).
// Arguments whose result is not a normal number (and NaN) go to math.Exp.
func Exp(x float64) float64 {
	// Round x·64/ln2 to an integer by adding 1.5·2^52: the sum's low
	// mantissa bits are n, and the sum less the constant is n exactly.
	kf := x*(64/math.Ln2) + roundShift
	n := int64(math.Float64bits(kf) - math.Float64bits(roundShift))
	// The range check made on n, one compare: n in [expMinN, expMaxN]
	// only for x in (-708, 709) (the rounding is monotone; NaN, infinities
	// and |x·64/ln2| ≥ 2^51 give n far outside). Outside the window,
	// where the range's ends lie, x itself is checked.
	if uint64(n-expMinN) > expMaxN-expMinN && !(x > -708 && x < 709) {
		return math.Exp(x)
	}
	kf -= roundShift
	r := x - kf*ln2Hi64 - kf*ln2Lo64
	q := r + r*r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120))))
	t := exp2Table[n&63]
	scale := math.Float64frombits(uint64(1023+(n>>6)) << 52)
	return (t + t*q) * scale
}

const (
	roundShift = 0x1.8p52
	// expMinN and expMaxN are one inside the n of x = -708 and of x = 709
	// (TestExpRangeWindow).
	expMinN = -65370
	expMaxN = 65463
	// ln2/64 in two parts: the high part has its low 21 mantissa bits zero
	// (math/exp.go's Ln2Hi), so kf·ln2Hi64 is exact for |kf| < 2^21.
	ln2Hi64 = 6.93147180369123816490e-01 / 64
	ln2Lo64 = 1.90821492927058770002e-10 / 64
)

// exp2Table[j] is 2^(j/64).
var exp2Table = func() (t [64]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / 64)
	}
	return t
}()
