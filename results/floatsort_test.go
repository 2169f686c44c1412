package results

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortFloatsMatchesSlicesSort: the radix sort gives the values
// slices.Sort gives, bit for bit, on data with negatives, duplicates,
// infinities, subnormals and float32-rounded times, above and below the
// radix threshold.
func TestSortFloatsMatchesSlicesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	gens := map[string]func() float64{
		"float32 times": func() float64 { return float64(float32(r.ExpFloat64() * 300)) },
		"mixed signs":   func() float64 { return r.NormFloat64() * 1e6 },
		"few values":    func() float64 { return float64(r.IntN(5)) - 2 },
		"extremes": func() float64 {
			return []float64{math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64,
				math.MaxFloat64, -math.MaxFloat64, 1, 0}[r.IntN(8)]
		},
		// every value exactly a float32: the 32-bit keys
		"float32 extremes": func() float64 {
			return []float64{math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
				math.MaxFloat32, -math.MaxFloat32, 1, 0, math.Copysign(0, -1), -3.5}[r.IntN(10)]
		},
	}
	for name, gen := range gens {
		for _, n := range []int{0, 1, radixMin - 1, radixMin, 50000} {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				xs := make([]float64, n)
				for i := range xs {
					xs[i] = gen()
				}
				want := slices.Clone(xs)
				slices.Sort(want)
				sortFloats(xs)
				for i := range xs {
					if xs[i] == 0 && want[i] == 0 && math.Float64bits(xs[i]) == 0 {
						continue // −0 is written back as +0
					}
					if math.Float64bits(xs[i]) != math.Float64bits(want[i]) {
						t.Fatalf("at %d: %v, slices.Sort has %v", i, xs[i], want[i])
					}
				}
			})
		}
	}
	t.Run("NaN goes to slices.Sort", func(t *testing.T) {
		xs := make([]float64, radixMin)
		for i := range xs {
			xs[i] = float64(len(xs) - i)
		}
		xs[7] = math.NaN()
		sortFloats(xs)
		if !math.IsNaN(xs[0]) || !slices.IsSorted(xs[1:]) {
			t.Errorf("NaN first and the rest sorted, got %v ...", xs[:3])
		}
	})
}

func BenchmarkSortFloats(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	src := make([]float64, 1<<22)
	for i := range src {
		src[i] = float64(float32(r.ExpFloat64() * 300))
	}
	xs := make([]float64, len(src))
	for _, sorter := range []struct {
		name string
		f    func([]float64)
	}{{"slices.Sort", slices.Sort[[]float64]}, {"radix", sortFloats}} {
		b.Run(sorter.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				copy(xs, src)
				sorter.f(xs)
			}
		})
	}
}
