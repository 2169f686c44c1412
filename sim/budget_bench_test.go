package sim

import "testing"

// BenchmarkLiveHeap is the cost of one in-run memory check: divided by
// 2^14 (memoryCheckMask+1) it is the check's share of an event.
func BenchmarkLiveHeap(b *testing.B) {
	b.ReportAllocs()
	var sink uint64
	for i := 0; i < b.N; i++ {
		sink += liveHeap()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(memoryCheckMask+1), "ns/event")
	_ = sink
}
