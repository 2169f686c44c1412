//go:build costgate_slow

package sim

import (
	"os"
	"strconv"
	"time"
)

// A build with the tag costgate_slow makes the event loop slower by a
// share of its own time, whatever an event costs: every 64 events it
// spins for SIM_COSTGATE_SLOW_PCT percent (default 25) of the time the
// last 64 took, so every cost-gate item runs that much longer.
// bench/costgate.sh --slow builds with it to show the gate fails. Not safe
// for runs in parallel (a sweep): the gate runs one at a time.
var costgateSlowPct = func() int64 {
	if n, err := strconv.Atoi(os.Getenv("SIM_COSTGATE_SLOW_PCT")); err == nil {
		return int64(n)
	}
	return 25
}()

var (
	costgateEvents int
	costgateSince  time.Time
)

func costgateSlow() {
	costgateEvents++
	if costgateEvents&63 != 0 {
		return
	}
	now := time.Now()
	if d := now.Sub(costgateSince); d < 10*time.Millisecond { // a longer gap is between runs
		deadline := now.Add(d * time.Duration(costgateSlowPct) / 100)
		for time.Now().Before(deadline) {
		}
	}
	costgateSince = time.Now()
}
