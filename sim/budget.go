package sim

import (
	"runtime/metrics"
)

// memoryCheckMask: a running world reads the heap every 2^14 events (a
// runtime/metrics read, without stopping the world), from its first
// event: every few milliseconds of a run at the engine's speed, so a short
// run that allocates fast (a large trace replayed) is checked too. A read
// costs about 250 ns (BenchmarkLiveHeap): 0.02 ns per event at this mask,
// under 0.01% of an event's few hundred ns.
const memoryCheckMask = 1<<14 - 1

// liveHeap is the process's heap marked live by the last garbage
// collection: what runs retain (compare's runs share one process).
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
