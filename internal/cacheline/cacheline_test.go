package cacheline

import (
	"testing"
	"unsafe"
)

// withPointer is a record holding a pointer, which a small allocation
// would start 8 bytes into a line for.
type withPointer struct {
	p *int
	_ [56]byte
}

// TestSliceStartsLine: the first element starts a cache line for lengths
// from none to past the span, records with and without pointers.
func TestSliceStartsLine(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 100, 511, 512, 513, 5000} {
		a := Slice[withPointer](n)
		b := Slice[[3]int64](n)
		if len(a) != n || len(b) != n {
			t.Fatalf("n = %d: lengths %d and %d", n, len(a), len(b))
		}
		if cap(a) == 0 || cap(b) == 0 {
			t.Fatalf("n = %d: no capacity to start a line with", n)
		}
		a, b = a[:cap(a)], b[:cap(b)]
		if p := uintptr(unsafe.Pointer(&a[0])); p%Size != 0 {
			t.Errorf("n = %d: records with a pointer start at %#x, %d into a line", n, p, p%Size)
		}
		if p := uintptr(unsafe.Pointer(&b[0])); p%Size != 0 {
			t.Errorf("n = %d: records without pointers start at %#x, %d into a line", n, p, p%Size)
		}
	}
}
