package bitset

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBitsetNext checks next against a plain scan, over sets that span
// several summary words (4,096 members each) and are cleared again.
func TestBitsetNext(t *testing.T) {
	const n = 3*4096 + 100
	rng := rand.New(rand.NewPCG(1, 2))
	var b Set
	in := make([]bool, n)
	check := func(step string) {
		t.Helper()
		want := -1
		for from := n - 1; from >= 0; from-- {
			if in[from] {
				want = from
			}
			if got := b.Next(from); got != want {
				t.Fatalf("%s: next(%d) = %d, want %d", step, from, got, want)
			}
		}
		if got := b.Next(n + 64*64); got != -1 {
			t.Fatalf("%s: next past the end = %d, want -1", step, got)
		}
	}
	check("empty")
	for _, i := range []int{0, 63, 64, 4095, 4096, 8191, n - 1} {
		b.Add(i)
		in[i] = true
	}
	check("edges")
	for range 300 {
		i := rng.IntN(n)
		b.Add(i)
		in[i] = true
	}
	check("random")
	for i := range in {
		if in[i] && rng.IntN(2) == 0 {
			b.Remove(i)
			in[i] = false
		}
	}
	check("half cleared")
	for i := range in {
		if in[i] {
			b.Remove(i)
			in[i] = false
		}
	}
	check("all cleared")
}

// TestSetCopyIntersect checks Copy and Intersect against plain boolean
// slices, through Next, over sets spanning several summary words, of
// different lengths either way.
func TestSetCopyIntersect(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	members := func(b *Set) []int {
		var out []int
		for i := b.Next(0); i >= 0; i = b.Next(i + 1) {
			out = append(out, i)
		}
		return out
	}
	for _, sizes := range [][2]int{{3*4096 + 100, 3*4096 + 100}, {9000, 300}, {300, 9000}, {0, 5000}} {
		var a, o Set
		inA, inO := map[int]bool{}, map[int]bool{}
		for range sizes[0] / 3 {
			i := rng.IntN(sizes[0])
			a.Add(i)
			inA[i] = true
		}
		for range sizes[1] / 3 {
			i := rng.IntN(sizes[1])
			o.Add(i)
			inO[i] = true
		}
		var c Set
		c.Add(12345) // replaced by Copy
		c.Copy(&a)
		a.Intersect(&o)
		var wantA, wantC []int
		for i := range max(sizes[0], sizes[1]) {
			if inA[i] && inO[i] {
				wantA = append(wantA, i)
			}
			if inA[i] {
				wantC = append(wantC, i)
			}
		}
		if got := members(&a); !slices.Equal(got, wantA) {
			t.Errorf("sizes %v: Intersect gives %d members, want %d", sizes, len(got), len(wantA))
		}
		if got := members(&c); !slices.Equal(got, wantC) {
			t.Errorf("sizes %v: Copy gives %d members, want %d", sizes, len(got), len(wantC))
		}
	}
}
