package policies

import "math/bits"

// bitset is a set of small integers with a summary word per 64 words, so
// that finding the next member skips 4,096 absent ones at a time.
type bitset struct {
	words   []uint64
	summary []uint64 // bit w set ⇔ words[w] != 0
}

func (b *bitset) set(i int) {
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

func (b *bitset) clear(i int) {
	w := i >> 6
	b.words[w] &^= 1 << (uint(i) & 63)
	if b.words[w] == 0 {
		b.summary[w>>6] &^= 1 << (uint(w) & 63)
	}
}

// next is the first member >= from, or -1.
func (b *bitset) next(from int) int {
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
