//go:build !costgate_slow

package sim

// costgateSlow is the extra work per event of a build with the tag
// costgate_slow (costgate_slow.go), which bench/costgate.sh uses to show
// that the cost gate fails on a slower engine; here, none.
func costgateSlow() {}
