package fastmath

import "math"

// Log is the natural logarithm of x: x = 2^e · m, m's top 7 mantissa bits
// pick a centre c (see logTable), log x = e·ln2 + log c + log1p(r) with
// r = m/c − 1 = (m − c)·(1/c), |r| < 2^-7 (m − c is exact: c has 8
// significant bits and the same exponent), and log1p(r)
// from its series to r⁸ (the next term is below 2e-17 of the result). Zero, negative, subnormal,
// infinite and NaN arguments go to math.Log.
func Log(x float64) float64 {
	b := math.Float64bits(x)
	e := int64(b >> 52)      // biased; the sign bit makes a negative x's 2048 or more
	if uint64(e-1) >= 2046 { // not a positive normal: e outside [1, 2046]
		return math.Log(x)
	}
	j := b >> 45 & 127
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52) // [1, 2)
	c := &logTable[j]
	e += c.bias
	r := (m - c.c) * c.inv
	p := r * r * (-1.0/2 + r*(1.0/3+r*(-1.0/4+r*(1.0/5+r*(-1.0/6+r*(1.0/7+r*(-1.0/8)))))))
	fe := float64(e)
	return (fe*ln2Hi + c.logC) + (fe*ln2Lo + (r + p))
}

const (
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.90821492927058770002e-10
)

// logTable[j] is for the mantissas [1 + j/128, 1 + (j+1)/128), of centre
// c (exact in 8 bits) and inv = 1/c (rounded: it moves r by an ulp of r,
// not of 1), so |r| ≤ 2^-8. Above √2, x is taken as 2^(e+1) · m/2 (up = 1)
// and logC is log(c/2), so that log x near 1 from below does not cancel
// e·ln2 against log m; the two bins next to 1 (j = 0, and j = 127 halved)
// take c = 1 and 2 themselves (|r| < 2^-7, logC = 0), so that log c does
// not cancel log1p(r) there either. bias is up less the exponent's bias
// (1023), added to the biased exponent at once.
var logTable = func() (t [128]struct {
	c, inv, logC float64
	bias         int64
}) {
	for j := range t {
		c := 1 + (float64(j)+0.5)/128
		switch j {
		case 0:
			c = 1
		case 127:
			c = 2
		}
		t[j].c, t[j].inv, t[j].logC, t[j].bias = c, 1/c, math.Log(c), -1023
		if c > math.Sqrt2 {
			t[j].bias, t[j].logC = 1-1023, math.Log(c/2)
		}
	}
	return t
}()
