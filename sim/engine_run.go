package sim

// runStop is the processed count at or after processed at which World.run
// must next take an event the long way, checking its budgets: maxEvents,
// or, with a memory budget, the next count the memory is read at (a
// multiple of memoryCheckMask+1). Before it neither check can fail, so
// events may be taken by Engine.popBefore.
func runStop(processed, maxEvents uint64, memory bool) uint64 {
	if memory {
		return min(maxEvents, (processed+memoryCheckMask)&^memoryCheckMask)
	}
	return maxEvents
}
