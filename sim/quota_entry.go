package sim

import (
	"fmt"

	"github.com/evalsched/lab/scenario"
)

// quotaEntry is 16 bytes: a rolling daily log holds every try of the last
// 24 hours, tens of millions on a busy week. A try's tokens are a whole
// number (a call's input plus output, each an int32), so they fit amt
// exactly; a history entry's minute of a declared day (whole, but up to
// the day's total) lives in the log's hist and amt is its index there.
type quotaEntry struct {
	t     Time
	amt   uint32 // tokens of a try; a history entry's index in quotaLog.hist
	model int16  // the evaluation call's model; -1 for production and history
	src   source
	kind  entryKind
}

// newTry is the entry of an accepted try (or, with kind entryBurn, of a
// rejected one counted against the request windows). A try of a model
// (model >= 0) is an evaluation call's: a log tallies it by its model
// alone (quotaLog.byModel).
func newTry(t Time, tokens float64, src source, model int32, kind entryKind) quotaEntry {
	e := quotaEntry{t: t, amt: uint32(tokens), src: src, model: int16(model), kind: kind}
	if float64(e.amt) != tokens || int32(e.model) != model || model >= 0 && src != srcEval {
		panic(badEntry{tokens, src, model}) // a value, not a call: newTry inlines
	}
	return e
}

// badEntry is the panic of a try an entry cannot hold.
type badEntry struct {
	tokens float64
	src    source
	model  int32
}

func (b badEntry) Error() string {
	return fmt.Sprintf("sim: quota entry of %v tokens from source %d on model %d: not a whole uint32, an int16, or a model's try not an evaluation call's", b.tokens, b.src, b.model)
}

// entryKind says what an entry counts in which window.
type entryKind uint8

// The history kinds come last: of tells them apart with one compare.
const (
	entryTry  entryKind = iota // an accepted try: 1 request, amt tokens
	entryBurn                  // a rejected try counted against the request windows
	// entryOut is a try's output, apart from its input (entryTry) in a
	// pool that meters them apart or counts output when a call ends.
	entryOut
	entryHistRequests // declared usage: amt requests
	entryHistTokens   // declared usage: amt tokens
	numEntryKinds
)

// holdsKind says whether a window counting c counts entries of kind k.
func holdsKind(c scenario.DimCounts, k entryKind) bool {
	switch k {
	case entryTry:
		return c != scenario.CountsOutput
	case entryHistTokens:
		return c == scenario.CountsTokens || c == scenario.CountsInput
	case entryOut:
		return c == scenario.CountsTokens || c == scenario.CountsOutput
	}
	return c == scenario.CountsRequests // burn, history requests
}

// kindsOf is the set of entry kinds (bit 1<<k) a window counting c holds.
func kindsOf(c scenario.DimCounts) uint8 {
	var m uint8
	for k := range numEntryKinds {
		if holdsKind(c, k) {
			m |= 1 << k
		}
	}
	return m
}

// holds says whether the window counts entries of kind k.
func (q *quotaWindow) holds(k entryKind) bool { return q.kinds>>k&1 != 0 }

// of is what entry e counts in the window (which holds it): a history
// entry its declared amount, a try or a burn 1 request in a requests
// window (the only windows holding burns), else its tokens.
func (q *quotaWindow) of(e *quotaEntry) float64 { return q.ofKind(e.kind, e.amt) }

// ofKind is of for an entry of kind and amt.
func (q *quotaWindow) ofKind(kind entryKind, amt uint32) float64 {
	if kind >= entryHistRequests {
		return q.log.hist[amt]
	}
	if q.one {
		return 1
	}
	return float64(amt)
}

// quotaTally is what entries count, by what a window counts of them:
// requests (tries and burns, one each), the tries' tokens (entryTry), and
// output tokens counted apart (entryOut). History entries are not tallied.
// Whole numbers, kept as integers: read as floats (of), they are the sums
// the windows would keep (every one below 2^53, so exact either way).
type quotaTally struct{ req, tok, out int64 }

// tallyOf is the tally of one entry of kind (not history) and tokens amt.
func tallyOf(kind entryKind, amt uint32) quotaTally {
	switch kind {
	case entryTry:
		return quotaTally{req: 1, tok: int64(amt)}
	case entryBurn:
		return quotaTally{req: 1}
	}
	return quotaTally{out: int64(amt)} // entryOut
}

// plus adds an entry of kind (not history) and tokens amt: what adding
// tallyOf(kind, amt) adds, without the zeros.
func (t *quotaTally) plus(kind entryKind, amt int64) {
	switch kind {
	case entryTry:
		t.req, t.tok = t.req+1, t.tok+amt
	case entryBurn:
		t.req++
	default:
		t.out += amt
	}
}

// minus takes out an entry plus added.
func (t *quotaTally) minus(kind entryKind, amt int64) {
	switch kind {
	case entryTry:
		t.req, t.tok = t.req-1, t.tok-amt
	case entryBurn:
		t.req--
	default:
		t.out -= amt
	}
}

// share says which part of a tally a window counts (shareNone: a fixed
// window, which keeps its own counts).
type share uint8

const (
	shareNone share = iota
	shareReq        // requests
	shareTok        // tokens: the tries' and output counted apart
	shareIn         // input: the tries' tokens (in a split pool, their input)
	shareOut        // output counted apart
)

// shareOf is what a rolling window counting c counts of a tally: exactly
// what it counts of the entries tallied (holdsKind, of): a kind it does
// not hold adds 0.
func shareOf(c scenario.DimCounts) share {
	switch c {
	case scenario.CountsRequests:
		return shareReq
	case scenario.CountsTokens:
		return shareTok
	case scenario.CountsInput:
		return shareIn
	}
	return shareOut
}

// of is the part s of the tally.
func (t *quotaTally) of(s share) float64 {
	switch s {
	case shareReq:
		return float64(t.req)
	case shareTok:
		return float64(t.tok + t.out)
	case shareIn:
		return float64(t.tok)
	case shareOut:
		return float64(t.out)
	}
	return 0
}
