package policies

// tickRing keeps a value (a limit, a running count) at each of a model's
// last slowMaxLookback ticks. A ring made by sumOver also keeps the sum of
// its last k values, so their mean (read at every tick for every model)
// costs no loop.
type tickRing struct {
	n   int // ticks recorded (the next slot is n % len)
	k   int // the window sum is kept over (0: none)
	sum int // of the last min(k, n) values
	v   [slowMaxLookback]int32
}

// sumOver makes an empty ring that keeps the sum of its last k values
// (1 <= k <= slowMaxLookback).
func sumOver(k int) tickRing { return tickRing{k: k} }

func (r *tickRing) record(x int) {
	v := int32(x)
	if r.k > 0 {
		if r.n >= r.k {
			r.sum -= int(r.v[slot(r.n-r.k)]) // still there: k <= len, read before the write
		}
		r.sum += int(v)
	}
	r.v[slot(r.n)] = v
	r.n++
}

// ago is the value recorded k ticks before the last one (the oldest kept
// while fewer are recorded).
func (r *tickRing) ago(k int) int {
	k = min(k, r.n-1, len(r.v)-1)
	return int(r.v[slot(r.n-1-k)])
}

// mean is the mean of the last k values (of fewer while fewer are recorded).
func (r *tickRing) mean(k int) float64 {
	if k == r.k && r.n > 0 {
		return float64(r.sum) / float64(min(k, r.n))
	}
	k = min(k, r.n, len(r.v))
	sum := 0
	for i := range k {
		sum += int(r.v[slot(r.n-1-i)])
	}
	return float64(sum) / float64(k)
}

// slot is the index in the ring of the i-th value recorded (i >= 0):
// unsigned, the remainder is a mask.
func slot(i int) int { return int(uint(i) % slowMaxLookback) }
