package results

import (
	"math"
	"testing"
)

// TestBillPerJob: a lane's bill adds its tokens' dollars to its container
// dollars and divides by its completed jobs; the total adds the lanes; the
// comparison's cost per job ratio is new ÷ old; without billing no bill is
// written.
func TestBillPerJob(t *testing.T) {
	lane := func(completed int64, running, dollars, read, write, uncached float64) LaneRaw {
		return LaneRaw{Model: "m", Completed: completed, RunningArea: running, Calls: 1,
			Bill: TokenBill{Dollars: dollars, CacheRead: read, CacheWrite: write, Uncached: uncached, Output: 7, CacheMissGateway: 2, CacheMissTool: 1}}
	}
	run := func(l LaneRaw, billing bool) Run {
		return Summarize(RunData{Policy: "p", WindowStart: 0, WindowEnd: 3600, PricePerHour: 0.36, Billing: billing, Lanes: []LaneRaw{l}})
	}
	old := run(lane(10, 7200, 3, 80, 15, 5), true)
	b := old.Lanes[0].Bill
	// 7200 container-seconds at 0.36/h = 0.72 dollars; 3 + 0.72 over 10 jobs.
	if math.Abs(b.ContainerDollars-0.72) > 1e-12 || math.Abs(b.DollarsPerJob-0.372) > 1e-12 || math.Abs(b.TokenDollarsPerJob-0.3) > 1e-12 {
		t.Errorf("bill %+v", *b)
	}
	if b.CacheReadShare != 0.8 || b.CacheMissGateway != 2 || b.CacheMissTool != 1 {
		t.Errorf("cache %+v", *b)
	}
	if tb := old.Total.Bill; tb == nil || tb.Dollars != b.Dollars {
		t.Errorf("total bill %+v, lane's %+v", tb, b)
	}
	new := run(lane(20, 3600, 4, 90, 5, 5), true)
	c := Compare(old, new)
	// new: (4 + 0.36) / 20 = 0.218 a job against 0.372.
	if len(c) != 1 || c[0].CostPerJobRatio == nil || math.Abs(*c[0].CostPerJobRatio-0.218/0.372) > 1e-12 {
		t.Errorf("comparison %+v", c)
	}
	if r := run(lane(10, 7200, 3, 80, 15, 5), false); r.Lanes[0].Bill != nil || r.Total.Bill != nil {
		t.Error("a bill without billing")
	}
	if c := Compare(run(lane(1, 1, 1, 1, 1, 1), false), run(lane(1, 1, 1, 1, 1, 1), false)); c[0].CostPerJobRatio != nil || c[0].OldDollarsPerJob != nil {
		t.Error("a cost ratio without billing")
	}
}
