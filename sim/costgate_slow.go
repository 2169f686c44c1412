//go:build costgate_slow

package sim

import (
	"os"
	"strconv"
	"time"
)

// A build with the tag costgate_slow makes the event loop slower, in one
// of two ways:
//
//   - SIM_COSTGATE_SPIN=N (bench/costgate_ir.sh): every event runs N
//     iterations of a fixed loop, so the added instructions are the same
//     in every run and under callgrind (which slows time, not
//     instructions); the script calibrates N to a share of an event's
//     instructions.
//   - otherwise (bench/costgate.sh --slow): every 64 events it spins for
//     SIM_COSTGATE_SLOW_PCT percent (default 25) of the time the last 64
//     took, so every cost-gate item runs that much longer whatever an
//     event costs.
//
// Not safe for runs in parallel (a sweep): the gates run one at a time.
var costgateSlowPct = func() int64 {
	if n, err := strconv.Atoi(os.Getenv("SIM_COSTGATE_SLOW_PCT")); err == nil {
		return int64(n)
	}
	return 25
}()

// costgateSpin is SIM_COSTGATE_SPIN, -1 when unset (the time mode).
var costgateSpin = func() int {
	v, ok := os.LookupEnv("SIM_COSTGATE_SPIN")
	if !ok {
		return -1
	}
	n, _ := strconv.Atoi(v)
	return n
}()

var (
	costgateEvents int
	costgateSince  time.Time
	costgateSink   uint64
)

func costgateSlow() {
	if costgateSpin >= 0 {
		x := costgateSink
		for i := range costgateSpin {
			x = x*6364136223846793005 + uint64(i)
		}
		costgateSink = x
		return
	}
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
