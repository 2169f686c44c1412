package reversal

// Count is the number of changes of direction among the nonzero moves of
// the n values at(0) … at(n-1): each move's sign against the last nonzero
// one's; holds in between do not break a run.
func Count(n int, at func(i int) int) int {
	count, last := 0, 0
	for i := 1; i < n; i++ {
		d := at(i) - at(i-1)
		if d == 0 {
			continue
		}
		dir := 1
		if d < 0 {
			dir = -1
		}
		if last != 0 && dir != last {
			count++
		}
		last = dir
	}
	return count
}
