package results

import (
	"math"
	"math/bits"
	"slices"
)

// radixMin is the length from which sortFloats uses the radix sort; below
// it, slices.Sort is as fast and needs no buffers.
const radixMin = 1 << 12

// sortFloats sorts xs ascending, as slices.Sort does, in O(n): an LSD radix
// sort in passes of 16 bits (a pass whose digit is the same in every key is
// skipped) on each value's bits mapped to an unsigned key whose order is the
// values' order (sign bit flipped for non-negative values, every bit flipped
// for negative ones). When every value is exactly a float32 — the jobs' time
// parts are kept as float32 — the keys are the float32 bits: two passes over
// 4-byte keys instead of up to four over 8-byte ones. The end-of-run summary
// sorts every finished job's times (millions on a week) for exact
// percentiles; pdqsort's n log n comparisons were its largest cost. −0 is
// sorted as +0 and written back as +0 (slices.Sort leaves equal values in
// any order); a slice with a NaN goes to slices.Sort, which puts NaNs first.
func sortFloats(xs []float64) {
	if len(xs) < radixMin {
		slices.Sort(xs)
		return
	}
	narrow := true
	for _, x := range xs {
		if x != x {
			slices.Sort(xs)
			return
		}
		narrow = narrow && float64(float32(x)) == x
	}
	if narrow {
		keys := make([]uint32, len(xs))
		for i, x := range xs {
			keys[i] = orderedBits32(float32(x))
		}
		for i, k := range radixSort(keys) {
			xs[i] = float64(math.Float32frombits(fromOrdered(k)))
		}
		return
	}
	keys := make([]uint64, len(xs))
	for i, x := range xs {
		keys[i] = orderedBits64(x)
	}
	for i, k := range radixSort(keys) {
		xs[i] = math.Float64frombits(fromOrdered(k))
	}
}

// orderedBits32 and orderedBits64 map a value (−0 as +0) to a key whose
// unsigned order is the values' order.
func orderedBits32(x float32) uint32 {
	if x == 0 {
		x = 0 // −0 → +0
	}
	return toOrdered(math.Float32bits(x))
}

func orderedBits64(x float64) uint64 {
	if x == 0 {
		x = 0
	}
	return toOrdered(math.Float64bits(x))
}

// toOrdered flips the sign bit of a non-negative value's bits, and every
// bit of a negative one's; fromOrdered undoes it.
func toOrdered[K uint32 | uint64](b K) K {
	sign := K(1) << (width[K]() - 1)
	if b&sign != 0 {
		return ^b
	}
	return b | sign
}

func fromOrdered[K uint32 | uint64](b K) K {
	sign := K(1) << (width[K]() - 1)
	if b&sign != 0 {
		return b &^ sign
	}
	return ^b
}

// width is the bits of a key of type K.
func width[K uint32 | uint64]() uint { return uint(bits.Len64(uint64(^K(0)))) }

// radixSort sorts keys by 16-bit digits, least significant first, and
// returns the sorted keys (in keys or in a buffer of its own).
func radixSort[K uint32 | uint64](keys []K) []K {
	tmp := make([]K, len(keys))
	var count [1 << 16]int
	for shift := uint(0); shift < width[K](); shift += 16 {
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
	return keys
}
