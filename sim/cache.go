package sim

// The prompt cache. A job's calls on its model share a growing prefix:
// each call's input is the previous turn's input plus its outputs and the
// tool's tokens. The provider keeps the prefix a call wrote (or read) for
// the model's cache lifetime after that use. So a try whose job used its
// cache no longer ago than the lifetime reads the cached prefix and writes
// the rest of its input; any other try writes its whole input. A call that
// finds the cache it had expired is a miss, caused by the gateway when the
// cache would have lived had the call not waited there (queue and backoff)
// and else by the time before the call was made (the tool step, and the
// previous turn's service).
//
// An entry a call writes exists only once that call's response begins
// (its first token; Anthropic's prompt-caching page, read 2026-12-06:
// parallel requests should wait for the first response before they can
// hit the cache). Until then the job's calls read only the prefix written
// before, so the parallel calls of a turn sent at the same instant all
// write. A prompt shorter than the model's minimum cacheable length is
// neither written nor read.
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

// notBegun is the readiness of a written entry whose call has not yet been
// served.
const notBegun Time = 1<<62 - 1

// jobCache is a job's prompt-cache entries on its model: the longest
// prefix that can be read, last used at use, and the prefixes written by
// accepted calls whose responses have not begun.
type jobCache struct {
	prefix  int32
	use     Time
	pending []pendingWrite
}

// pendingWrite is a prefix of in tokens written by call at wrote,
// readable from ready (notBegun until the call is served).
type pendingWrite struct {
	call         int64
	in           int32
	wrote, ready Time
}

// promote makes every pending prefix whose response has begun readable;
// it counts as used when it was written.
func (c *jobCache) promote(now Time) {
	rest := c.pending[:0]
	for _, p := range c.pending {
		if p.ready <= now {
			c.prefix = max(c.prefix, p.in)
			c.use = max(c.use, p.wrote)
		} else {
			rest = append(rest, p)
		}
	}
	clear(c.pending[len(rest):])
	c.pending = rest
}

// split is what a try of in tokens at now reads and writes, given the
// lifetime and the minimum cacheable prompt, and why it missed (born is
// when the call was made).
func (c *jobCache) split(now, born Time, in int32, life Time, minLen int32) (read, write int32, miss uint8) {
	if in < minLen {
		return 0, 0, cacheNoMiss
	}
	c.promote(now)
	switch {
	case c.prefix > 0 && now-c.use <= life:
		read = min(c.prefix, in)
	case c.prefix > 0:
		miss = cacheMissTool
		if born-c.use <= life {
			miss = cacheMissGateway
		}
	}
	return read, in - read, miss
}

// used: call's accepted try of in tokens read read and wrote write now: a
// read refreshes the readable prefix; a write is pending until the call's
// response begins (begun).
func (c *jobCache) used(now Time, call int64, in, read, write int32) {
	c.promote(now)
	if read > 0 {
		c.use = now
	}
	if write > 0 {
		c.pending = append(c.pending, pendingWrite{call: call, in: in, wrote: now, ready: notBegun})
	}
}

// begun: call's response begins at t; what it wrote is readable from then.
func (c *jobCache) begun(call int64, t Time) {
	for i := range c.pending {
		if c.pending[i].call == call {
			c.pending[i].ready = t
		}
	}
}

// cacheSplit sets an evaluation call's cache read and write for a try now
// (a recorded call keeps its own), and reports whether its organisation
// caches.
func (w *World) cacheSplit(cs *callState) bool {
	d := &w.prov.models[cs.model]
	if d.evalOrg < 0 || !w.prov.rules[d.evalOrg].cache {
		return false
	}
	if cs.recorded {
		return true
	}
	j := w.running.at(cs.owner)
	cs.cacheRead, cs.cacheWrite, cs.miss = j.cache.split(w.now(), cs.born, cs.in, d.cacheLife, d.cacheMin)
	return true
}

// cacheUsed: an accepted try read or wrote its job's cache entry now.
func (w *World) cacheUsed(cs *callState) {
	if cs.recorded {
		j := w.running.at(cs.owner)
		// A recorded call says what the provider did: its prefix is there.
		j.cache.promote(w.now())
		j.cache.prefix = max(j.cache.prefix, cs.in)
		j.cache.use = w.now()
		return
	}
	if cs.cacheRead == 0 && cs.cacheWrite == 0 {
		return // below the minimum: not cached
	}
	w.running.at(cs.owner).cache.used(w.now(), cs.serial, cs.in, cs.cacheRead, cs.cacheWrite)
}

// cacheBegun: an evaluation call that wrote the cache is served now and
// its response begins after lat × its time to first token's share of its
// unloaded latency; its entry is readable from then.
func (w *World) cacheBegun(c int32, cs *callState, lat Time) {
	ttft := w.prov.models[cs.model].cfg.TTFT.Seconds()
	at := w.now()
	if cs.base > 0 {
		at += Time(float64(lat) * ttft / cs.base)
	}
	w.running.at(cs.owner).cache.begun(cs.serial, at)
	w.emit(&obs{kind: obsCacheReady, id: c, d: at})
}

// cacheWrites says whether a served call wrote its job's cache (so its
// first token makes an entry readable). A call that writes nothing, most
// calls and every call of a run without a cache, is told by its first test.
func (w *World) cacheWrites(cs *callState) bool {
	return cs.cacheWrite > 0 && cs.kind == jobCall && !cs.recorded && w.prov.models[cs.model].caches
}
