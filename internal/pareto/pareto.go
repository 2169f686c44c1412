package pareto

// Better reports whether a is strictly better than b on one figure.
type Better func(a, b float64) bool

// Higher and Lower are the two usual orders: more is better, less is better.
var (
	Higher Better = func(a, b float64) bool { return a > b }
	Lower  Better = func(a, b float64) bool { return a < b }
)

// Front is the indices, in input order, of the points (xs[i], ys[i]) that
// no other point dominates; a point dominates another when it is no worse
// on either figure and better on one. Two equal points both stay on the
// front. The check is the plain one, every pair: fronts here are of tens
// of runs or settings.
func Front(xs, ys []float64, betterX, betterY Better) []int {
	if len(xs) != len(ys) {
		panic("pareto.Front: xs and ys differ in length")
	}
	var front []int
	for i := range xs {
		if !Dominated(i, xs, ys, betterX, betterY) {
			front = append(front, i)
		}
	}
	return front
}

// Dominated reports whether some point dominates point i.
func Dominated(i int, xs, ys []float64, betterX, betterY Better) bool {
	for j := range xs {
		if j != i && !betterX(xs[i], xs[j]) && !betterY(ys[i], ys[j]) && (betterX(xs[j], xs[i]) || betterY(ys[j], ys[i])) {
			return true
		}
	}
	return false
}
