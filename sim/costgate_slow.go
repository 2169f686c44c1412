//go:build costgate_slow

package sim

import (
	"os"
	"strconv"
)

// costgateSlowIters is how many steps of a dependent multiply-add chain
// each event costs in a build with the tag costgate_slow (about 1.3 ns a
// step here): SIM_COSTGATE_SLOW_ITERS, default 80. bench/costgate.sh
// --slow builds with the tag to show that the cost gate fails.
var costgateSlowIters = func() int {
	if n, err := strconv.Atoi(os.Getenv("SIM_COSTGATE_SLOW_ITERS")); err == nil {
		return n
	}
	return 80
}()

var costgateSink uint64

func costgateSlow() {
	x := costgateSink
	for i := 0; i < costgateSlowIters; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	costgateSink = x
}
