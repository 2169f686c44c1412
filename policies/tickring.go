package policies

// tickRing keeps a value (a limit, a running count) at each of a model's
// last slowMaxLookback ticks.
type tickRing struct {
	v [slowMaxLookback]int32
	n int // ticks recorded (the next slot is n % len)
}

func (r *tickRing) record(x int) {
	r.v[r.n%len(r.v)] = int32(x)
	r.n++
}

// ago is the value recorded k ticks before the last one (the oldest kept
// while fewer are recorded).
func (r *tickRing) ago(k int) int {
	k = min(k, r.n-1, len(r.v)-1)
	return int(r.v[(r.n-1-k)%len(r.v)])
}

// mean is the mean of the last k values (of fewer while fewer are recorded).
func (r *tickRing) mean(k int) float64 {
	k = min(k, r.n, len(r.v))
	sum := 0
	for i := range k {
		sum += int(r.v[(r.n-1-i)%len(r.v)])
	}
	return float64(sum) / float64(k)
}
