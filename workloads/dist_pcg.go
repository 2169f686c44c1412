package workloads

import "math/bits"

// pcg is math/rand/v2's PCG: the same state, step and output, so a
// stream seeded alike draws the same values (TestPCGMatchesRand), with
// its state the package's own, so that the generator can step it over
// draws whose values it does not need without drawing them (jump).
type pcg struct{ hi, lo uint64 }

// The step's constants: state = state·mul + inc, mod 2^128.
const (
	pcgMulHi = 2549297995355413924
	pcgMulLo = 4865540595714422341
	pcgIncHi = 6364136223846793005
	pcgIncLo = 1442695040888963407
)

func newPCG(seed1, seed2 uint64) *pcg { return &pcg{seed1, seed2} }

// Uint64 steps the state and returns its DXSM output, as (*rand.PCG).Uint64.
func (p *pcg) Uint64() uint64 {
	hi, lo := bits.Mul64(p.lo, pcgMulLo)
	hi += p.hi*pcgMulLo + p.lo*pcgMulHi
	lo, c := bits.Add64(lo, pcgIncLo, 0)
	hi, _ = bits.Add64(hi, pcgIncHi, c)
	p.lo, p.hi = lo, hi
	const cheapMul = 0xda942042e4dd58b5
	hi ^= hi >> 32
	hi *= cheapMul
	hi ^= hi >> 48
	return hi * (lo | 1)
}

// pcgJump is n steps of the state composed into one affine step:
// state·mul + inc.
type pcgJump struct{ mulHi, mulLo, incHi, incLo uint64 }

func newPCGJump(n int) pcgJump {
	j := pcgJump{mulLo: 1} // no step: the identity
	for range n {
		// one more step after j: (s·m + i)·M + I = s·(m·M) + (i·M + I)
		j.mulHi, j.mulLo = mul128(j.mulHi, j.mulLo, pcgMulHi, pcgMulLo)
		j.incHi, j.incLo = mul128(j.incHi, j.incLo, pcgMulHi, pcgMulLo)
		var c uint64
		j.incLo, c = bits.Add64(j.incLo, pcgIncLo, 0)
		j.incHi, _ = bits.Add64(j.incHi, pcgIncHi, c)
	}
	return j
}

// jump steps the state as j's n draws would, without their outputs.
func (p *pcg) jump(j *pcgJump) {
	hi, lo := mul128(p.hi, p.lo, j.mulHi, j.mulLo)
	lo, c := bits.Add64(lo, j.incLo, 0)
	hi, _ = bits.Add64(hi, j.incHi, c)
	p.lo, p.hi = lo, hi
}

// mul128 is a·b mod 2^128.
func mul128(aHi, aLo, bHi, bLo uint64) (hi, lo uint64) {
	hi, lo = bits.Mul64(aLo, bLo)
	return hi + aHi*bLo + aLo*bHi, lo
}
