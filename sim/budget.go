package sim

import (
	"runtime/metrics"
)

// memoryCheckMask: a running world reads the heap every 2^20 events (a
// runtime/metrics read, without stopping the world: far below 1% of the run).
const memoryCheckMask = 1<<20 - 1

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
