package ring

import (
	"math/rand/v2"
	"testing"
)

// TestAgainstSlice checks the ring against a plain slice used as a queue.
func TestAgainstSlice(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var q Ring[int]
	var ref []int
	for i := 0; i < 100000; i++ {
		if r.IntN(3) > 0 || len(ref) == 0 {
			q.Push(i)
			ref = append(ref, i)
		} else {
			if got, want := q.Pop(), ref[0]; got != want {
				t.Fatalf("step %d: Pop = %d, want %d", i, got, want)
			}
			ref = ref[1:]
		}
		if q.Len() != len(ref) {
			t.Fatalf("step %d: Len = %d, want %d", i, q.Len(), len(ref))
		}
		if len(ref) > 0 && (*q.Peek() != ref[0] || *q.At(len(ref) - 1) != ref[len(ref)-1]) {
			t.Fatalf("step %d: Peek/At disagree with the reference", i)
		}
	}
}
