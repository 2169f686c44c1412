package results

import (
	"math"
	"slices"
)

// radixMin is the length from which sortFloats uses the radix sort; below
// it, slices.Sort is as fast and needs no buffers.
const radixMin = 1 << 12

// sortFloats sorts xs ascending, as slices.Sort does, in O(n): an LSD radix
// sort, four passes of 16 bits (a pass whose digit is the same in every key,
// as the low mantissa bits of float32 times are, is skipped), on each value's
// bits mapped to an unsigned key whose order is the values' order (sign bit
// flipped for non-negative values, every bit flipped for negative ones). The
// end-of-run summary sorts every finished job's times (millions on a week) for
// exact percentiles; pdqsort's n log n comparisons were its largest cost. −0
// is sorted as +0 and written back as +0 (slices.Sort leaves equal values in
// any order); a slice with a NaN goes to slices.Sort, which puts NaNs first.
func sortFloats(xs []float64) {
	if len(xs) < radixMin {
		slices.Sort(xs)
		return
	}
	keys := make([]uint64, len(xs))
	for i, x := range xs {
		if x != x {
			slices.Sort(xs)
			return
		}
		if x == 0 {
			x = 0 // −0 → +0
		}
		b := math.Float64bits(x)
		if b>>63 == 1 {
			b = ^b
		} else {
			b |= 1 << 63
		}
		keys[i] = b
	}
	tmp := make([]uint64, len(xs))
	var count [1 << 16]int
	for shift := uint(0); shift < 64; shift += 16 {
		clear(count[:])
		for _, k := range keys {
			count[(k>>shift)&0xffff]++
		}
		if count[(keys[0]>>shift)&0xffff] == len(keys) {
			continue // every key has this digit: the pass would not move anything
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, k := range keys {
			d := (k >> shift) & 0xffff
			tmp[count[d]] = k
			count[d]++
		}
		keys, tmp = tmp, keys
	}
	for i, b := range keys {
		if b>>63 == 1 {
			b &^= 1 << 63
		} else {
			b = ^b
		}
		xs[i] = math.Float64frombits(b)
	}
}
