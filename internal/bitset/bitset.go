// Package bitset is a set of small non-negative integers, a bit each, with
// a summary word per 64 words so that finding the next member skips 4,096
// absent ones at a time. The scheduler's waiting-job index (policies) finds
// the next project in a tier's ring with it; the recorder's fairness
// windows (sim) keep the projects with jobs waiting and a window's
// candidates in it, read in increasing order.
package bitset

import "math/bits"

// Set is a set of small non-negative integers; the zero value is empty.
type Set struct {
	words   []uint64
	summary []uint64 // bit w set ⇔ words[w] != 0
}

// Add puts i in the set.
func (b *Set) Add(i int) {
	w := i >> 6
	for w >= len(b.words) {
		b.words = append(b.words, 0)
	}
	for w>>6 >= len(b.summary) {
		b.summary = append(b.summary, 0)
	}
	b.words[w] |= 1 << (uint(i) & 63)
	b.summary[w>>6] |= 1 << (uint(w) & 63)
}

// Remove takes i out of the set.
func (b *Set) Remove(i int) {
	w := i >> 6
	if w >= len(b.words) {
		return
	}
	b.words[w] &^= 1 << (uint(i) & 63)
	if b.words[w] == 0 {
		b.summary[w>>6] &^= 1 << (uint(w) & 63)
	}
}

// Next is the first member >= from, or -1.
func (b *Set) Next(from int) int {
	w := from >> 6
	if w >= len(b.words) {
		return -1
	}
	if word := b.words[w] &^ (1<<(uint(from)&63) - 1); word != 0 {
		return w<<6 + bits.TrailingZeros64(word)
	}
	w++
	for sw := w >> 6; sw < len(b.summary); sw++ {
		sum := b.summary[sw]
		if sw == w>>6 {
			sum &^= 1<<(uint(w)&63) - 1
		}
		if sum != 0 {
			wi := sw<<6 + bits.TrailingZeros64(sum)
			return wi<<6 + bits.TrailingZeros64(b.words[wi])
		}
	}
	return -1
}

// Copy makes the set hold exactly src's members.
func (b *Set) Copy(src *Set) {
	b.words = append(b.words[:0], src.words...)
	b.summary = append(b.summary[:0], src.summary...)
}

// Intersect keeps only the members that o has too.
func (b *Set) Intersect(o *Set) {
	for w := range b.words {
		if b.words[w] == 0 {
			continue
		}
		if w < len(o.words) {
			b.words[w] &= o.words[w]
		} else {
			b.words[w] = 0
		}
		if b.words[w] == 0 {
			b.summary[w>>6] &^= 1 << (uint(w) & 63)
		}
	}
}
