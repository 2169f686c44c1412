package sim

// The prompt cache. A job's calls on its model share a growing prefix:
// each call's input is the previous turn's input plus its outputs and the
// tool's tokens. The provider keeps the prefix a call wrote (or read) for
// the organisation's cache lifetime after that use. So a try whose job used
// its cache no longer ago than the lifetime reads the cached prefix and
// writes the rest of its input; any other try writes its whole input. A
// call that finds the cache it had expired is a miss, caused by the
// gateway when the cache would have lived had the call not waited there
// (queue and backoff) and else by the time before the call was made (the
// tool step, and the previous turn's service).
//
// A call whose trace record carries a cache read or write keeps them as
// recorded, whether or not its organisation caches: the log says what the
// provider did, and the model's split is only for calls without one. Its
// use still refreshes the job's entry, for the job's calls that have none.

// Why a call missed a cache entry its job had (callState.miss).
const (
	cacheNoMiss uint8 = iota
	cacheMissGateway
	cacheMissTool
)

// cacheSplit sets an evaluation call's cache read and write for a try now
// (a recorded call keeps its own), and reports whether its organisation
// caches.
func (w *World) cacheSplit(cs *callState) bool {
	org := w.prov.models[cs.model].evalOrg
	if org < 0 || !w.prov.rules[org].cache {
		return false
	}
	if cs.recorded {
		return true
	}
	life := w.prov.rules[org].lifetime
	j := w.running.at(cs.owner)
	now := w.now()
	cs.miss = cacheNoMiss
	switch {
	case j.cachePrefix > 0 && now-j.cacheUse <= life:
		cs.cacheRead = min(j.cachePrefix, cs.in)
	case j.cachePrefix > 0:
		cs.cacheRead = 0
		cs.miss = cacheMissTool
		if now-j.cacheUse-(now-cs.born) <= life {
			cs.miss = cacheMissGateway
		}
	default:
		cs.cacheRead = 0
	}
	cs.cacheWrite = cs.in - cs.cacheRead
	return true
}

// cacheUsed: an accepted try read or wrote its job's cache entry now.
func (w *World) cacheUsed(cs *callState) {
	j := w.running.at(cs.owner)
	j.cachePrefix = max(j.cachePrefix, cs.in)
	j.cacheUse = w.now()
}
