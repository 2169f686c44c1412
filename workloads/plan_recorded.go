package workloads

import (
	"fmt"
	"strconv"
)

// CallRecord is what an imported log recorded of a call beyond its input
// and output tokens: the parts of the input read from and written to the
// provider's prompt cache, and the call's output cap (max_tokens). Zero
// means not recorded.
//
// The simulator replays them as recorded: a call with a cache read or
// write counts those in the quota meters and the bill instead of the
// cache model's split, and a call with a max_tokens asks for it (sim,
// cache.go). Behaviour fitting reads them too.
type CallRecord struct {
	CacheRead, CacheWrite, MaxTokens int
}

// IsZero reports whether nothing beyond In and Out was recorded.
func (r CallRecord) IsZero() bool { return r == CallRecord{} }

// Record returns what was recorded of call k of the turn beyond its tokens
// (zero when nothing was).
func (t *PlanTurn) Record(k int) CallRecord {
	if k < len(t.Recorded) {
		return t.Recorded[k]
	}
	return CallRecord{}
}

// AddCall appends a call and its record, keeping Recorded nil while every
// record is zero, so a plan without recorded fields has the same shape
// (and encoding) as before they existed.
func (t *PlanTurn) AddCall(c PlanCall, r CallRecord) {
	if !r.IsZero() && t.Recorded == nil {
		t.Recorded = make([]CallRecord, len(t.Calls), len(t.Calls)+1)
	}
	t.Calls = append(t.Calls, c)
	if t.Recorded != nil {
		t.Recorded = append(t.Recorded, r)
	}
}

// validateRecord checks call k's record: each field in [0, 2^31), the
// cached parts no larger than the input they are part of.
func (t *PlanTurn) validateRecord(k int) error {
	if len(t.Recorded) > len(t.Calls) {
		return fmt.Errorf("%d call records for %d calls", len(t.Recorded), len(t.Calls))
	}
	r := t.Record(k)
	for _, v := range []struct {
		name string
		n    int
	}{{"cache read tokens", r.CacheRead}, {"cache write tokens", r.CacheWrite}, {"max_tokens", r.MaxTokens}} {
		if v.n < 0 || v.n > maxPlanTokens {
			return fmt.Errorf("%s %d outside [0, %d]", v.name, v.n, maxPlanTokens)
		}
	}
	if in := t.Calls[k].In; r.CacheRead+r.CacheWrite > in {
		return fmt.Errorf("cache read %d + cache write %d tokens above the %d input tokens they are part of", r.CacheRead, r.CacheWrite, in)
	}
	return nil
}

// appendRecord appends call k's record, each field after sep, when the
// call has one: a call without writes as it always did.
func (t *PlanTurn) appendRecord(b []byte, k int, sep byte) []byte {
	r := t.Record(k)
	if r.IsZero() {
		return b
	}
	for _, v := range []int{r.CacheRead, r.CacheWrite, r.MaxTokens} {
		b = append(b, sep)
		b = strconv.AppendInt(b, int64(v), 10)
	}
	return b
}

// callFieldNames name a call's numbers in errors, in their order.
var callFieldNames = [5]string{"input tokens", "output tokens", "cache read tokens", "cache write tokens", "max_tokens"}

// parseCallNumbers reads a call's two numbers (IN, OUT) or five (IN, OUT,
// CACHE_READ, CACHE_WRITE, MAX_TOKENS).
func parseCallNumbers(parts []string) (PlanCall, CallRecord, error) {
	var v [5]int
	for i, p := range parts {
		n, err := parseTokens(p)
		if err != nil {
			return PlanCall{}, CallRecord{}, fmt.Errorf("%s: %v", callFieldNames[i], err)
		}
		v[i] = n
	}
	return PlanCall{In: v[0], Out: v[1]}, CallRecord{CacheRead: v[2], CacheWrite: v[3], MaxTokens: v[4]}, nil
}
