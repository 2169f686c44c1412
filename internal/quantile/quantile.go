// Package quantile is the one definition of a sample's p-quantile the lab
// uses: the nearest rank.
package quantile

import "math"

// Rank is the index of the p-quantile of n sorted values by nearest rank,
// ⌈p·n⌉ − 1 within [0, n−1]: the first value whose count reaches p·n, the
// one gonum's stat.Quantile(p, stat.Empirical, x, nil) returns for
// unweighted data. n must be positive.
func Rank(n int, p float64) int {
	return min(max(int(math.Ceil(p*float64(n)))-1, 0), n-1)
}
