package policies

// tickRing keeps a value (a limit, a running count) at each of a model's
// last slowMaxLookback ticks. A ring made by sumOver also keeps the sum of
// its last k values, so their mean (read at every tick for every model)
// costs no loop.
//
// A ring's values are a column of a tickTile shared by sixteen models'
// rings (tickTiles): every model records at every tick, at the same slot
// as the others mostly, so a tick's records of all models fill one cache
// line of each tile instead of a line of each model's record. A ring
// without a tile (the zero value, sumOver's) takes one of its own at its
// first record.
type tickRing struct {
	t   *tickTile // nil: no value recorded yet
	n   int       // ticks recorded (the next slot is n % slowMaxLookback)
	sum int       // of the last min(k, n) values (k = 0: unread)
	k   int32     // the window sum is kept over (0: none)
	col uint32    // the ring's column of t, 0 to tileColumns-1
}

// tileColumns is how many rings a tickTile holds: a row of it, one slot of
// each, is a cache line.
const tileColumns = 16

// tickTile holds the values of tileColumns rings: row s is slot s of each.
type tickTile [slowMaxLookback][tileColumns]int32

// tickTiles makes the tiles of n rings, ring m in tile m/tileColumns.
func tickTiles(n int) []tickTile { return make([]tickTile, (n+tileColumns-1)/tileColumns) }

// column is ring m of tiles, keeping the sum of its last k values (0:
// none; 1 <= k <= slowMaxLookback otherwise).
func column(tiles []tickTile, m, k int) tickRing {
	return tickRing{t: &tiles[m/tileColumns], k: int32(k), col: uint32(m % tileColumns)}
}

// sumOver makes an empty ring that keeps the sum of its last k values
// (1 <= k <= slowMaxLookback).
func sumOver(k int) tickRing { return tickRing{k: int32(k)} }

// at is the value recorded i-th (i >= 0).
func (r *tickRing) at(i int) int { return int(r.t[slot(i)][r.col%tileColumns]) }

func (r *tickRing) record(x int) {
	if r.t == nil {
		r.t = new(tickTile) // col is 0
	}
	t, n, col, v := r.t, r.n, r.col%tileColumns, int32(x)
	// The value k ticks ago leaves the sum, read before the write (still
	// there: k <= len); while fewer than k are recorded it is a slot not
	// written yet, 0. With k = 0 the sum is never read: no branch. The
	// values are counts (>= 0), so their difference fits an int32.
	r.sum += int(v - t[slot(n-int(r.k))][col])
	t[slot(n)][col] = v
	r.n++
}

// ago is the value recorded k ticks before the last one (the oldest kept
// while fewer are recorded; 0 before the first).
func (r *tickRing) ago(k int) int {
	if r.n == 0 {
		return 0
	}
	k = min(k, r.n-1, slowMaxLookback-1)
	return r.at(r.n - 1 - k)
}

// mean is the mean of the last k values (of fewer while fewer are recorded).
func (r *tickRing) mean(k int) float64 {
	if k == int(r.k) && k > 0 && r.n > 0 {
		return float64(r.sum) / float64(min(k, r.n))
	}
	k = min(k, r.n, slowMaxLookback)
	sum := 0
	for i := range k {
		sum += r.at(r.n - 1 - i)
	}
	return float64(sum) / float64(k)
}

// slot is the index in the ring of the i-th value recorded (i >= 0):
// unsigned, the remainder is a mask.
func slot(i int) int { return int(uint(i) % slowMaxLookback) }
