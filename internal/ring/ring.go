// Package ring is a growable FIFO ring buffer: amortised O(1) push and pop
// with no per-item allocation, for queues that hold millions of items.
package ring

// Ring is a FIFO queue; the zero value is empty and ready to use.
type Ring[T any] struct {
	buf  []T
	head int
	n    int
}

// Len is the number of queued items.
func (q *Ring[T]) Len() int { return q.n }

// Push appends v at the tail.
func (q *Ring[T]) Push(v T) {
	if q.n == len(q.buf) {
		q.grow()
	}
	// The buffer's length is a power of two (grow doubles from 16): the
	// tail wraps by a mask, and Push stays small enough to inline.
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = v
	q.n++
}

// Peek returns a pointer to the oldest item; the queue must not be empty.
func (q *Ring[T]) Peek() *T { return &q.buf[q.head] }

// At returns a pointer to the i-th oldest item, 0 <= i < Len.
func (q *Ring[T]) At(i int) *T {
	i += q.head
	if i >= len(q.buf) {
		i -= len(q.buf)
	}
	return &q.buf[i]
}

// Pop removes and returns the oldest item; the queue must not be empty.
func (q *Ring[T]) Pop() T {
	var zero T
	v := q.buf[q.head]
	q.buf[q.head] = zero
	q.head++
	if q.head == len(q.buf) {
		q.head = 0
	}
	q.n--
	return v
}

// grow is kept out of line: Push then inlines at its callers.
//
//go:noinline
func (q *Ring[T]) grow() {
	size := 2 * len(q.buf)
	if size < 16 {
		size = 16
	}
	buf := make([]T, size)
	for i := 0; i < q.n; i++ {
		buf[i] = *q.At(i)
	}
	q.buf, q.head = buf, 0
}
