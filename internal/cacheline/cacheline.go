// Package cacheline makes slices whose first element starts a cache line,
// for tables of records laid out a line (or a whole number of lines) each
// and reached at random: a record that starts a line then takes no more
// lines than its size needs.
//
// It relies on the Go allocator: an allocation of over 32 KiB is a span of
// its own, page-aligned, while a smaller one holding pointers starts after
// the allocator's 8-byte type header. Slice asks for at least that much
// capacity, so the table starts a page, whatever its length.
package cacheline

import "unsafe"

// Size is the cache line the records are laid out for, in bytes.
const Size = 64

// Slice makes n zero Ts whose first starts a cache line (see the package
// doc): its capacity is at least 32 KiB worth of Ts, its length n.
func Slice[T any](n int) []T {
	var z T
	span := 32<<10/int(unsafe.Sizeof(z)) + 1
	return make([]T, n, max(n, span))
}
