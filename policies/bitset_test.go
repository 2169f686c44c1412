package policies

import (
	"math/rand/v2"
	"testing"
)

// TestBitsetNext checks next against a plain scan, over sets that span
// several summary words (4,096 members each) and are cleared again.
func TestBitsetNext(t *testing.T) {
	const n = 3*4096 + 100
	rng := rand.New(rand.NewPCG(1, 2))
	var b bitset
	in := make([]bool, n)
	check := func(step string) {
		t.Helper()
		want := -1
		for from := n - 1; from >= 0; from-- {
			if in[from] {
				want = from
			}
			if got := b.next(from); got != want {
				t.Fatalf("%s: next(%d) = %d, want %d", step, from, got, want)
			}
		}
		if got := b.next(n + 64*64); got != -1 {
			t.Fatalf("%s: next past the end = %d, want -1", step, got)
		}
	}
	check("empty")
	for _, i := range []int{0, 63, 64, 4095, 4096, 8191, n - 1} {
		b.set(i)
		in[i] = true
	}
	check("edges")
	for range 300 {
		i := rng.IntN(n)
		b.set(i)
		in[i] = true
	}
	check("random")
	for i := range in {
		if in[i] && rng.IntN(2) == 0 {
			b.clear(i)
			in[i] = false
		}
	}
	check("half cleared")
	for i := range in {
		if in[i] {
			b.clear(i)
			in[i] = false
		}
	}
	check("all cleared")
}
