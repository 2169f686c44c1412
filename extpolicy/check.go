package extpolicy

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/evalsched/lab/policies"
)

// maxValue bounds a limit or a target depth the process announces: the
// outputs record them as 32-bit integers.
const maxValue = math.MaxInt32

// check refuses a plan that is not whole (a null, a value out of range, a
// job that is not waiting) or that breaks a rule: more starts than the
// free containers it was offered (a guard's cap shows there), or starts
// that take a model past the limit the process announces for it. The
// plan's limits are kept in p.limits only when it passes.
func (p *Policy) check(what string, state policies.State) error {
	r := &p.reply
	limits := p.limits
	if r.Limits != nil {
		limits = make([]int, p.models)
		for i, raw := range r.Limits {
			v, err := integer(raw, 0, maxValue)
			if err != nil {
				return p.fail(what, fmt.Errorf("limits[%d] (%s): %w", i, p.modelName(i), err))
			}
			limits[i] = int(v)
		}
	}
	if p.perModel == nil {
		p.perModel = make([]int, p.models)
	}
	clear(p.perModel)
	seen := make(map[policies.JobID]bool, len(r.Start))
	for i, raw := range r.Start {
		v, err := integer(raw, 0, math.MaxInt64)
		if err != nil {
			return p.fail(what, fmt.Errorf("start[%d]: %s", i, strings.Replace(err.Error(), "an integer", "a job id", 1)))
		}
		id := policies.JobID(v)
		m, ok := p.waiting[id]
		if !ok || seen[id] {
			return p.fail(what, fmt.Errorf("starts job %d, which is not waiting", id))
		}
		seen[id] = true
		p.perModel[m]++
	}
	if free := state.FreeContainers(); len(r.Start) > free {
		return p.fail(what, fmt.Errorf("the plan starts %d jobs, more than the %d free containers (free)", len(r.Start), free))
	}
	if r.Limits != nil || p.limited {
		for m, n := range p.perModel {
			if running := state.Running(policies.ModelID(m)); n > 0 && running+n > limits[m] {
				return p.fail(what, fmt.Errorf("the plan starts %d jobs on %s, which runs %d, past its own limit %d (limits[%d])",
					n, p.modelName(m), running, limits[m], m))
			}
		}
	}
	if r.Limits != nil {
		copy(p.limits, limits)
	}
	return nil
}

// number reads a JSON number (want says what was wanted instead of a null
// or another value).
func number(raw json.RawMessage, want string) (float64, error) {
	s := string(raw)
	if s == "null" || s == "" || s[0] == '"' || s[0] == '[' || s[0] == '{' || s == "true" || s == "false" {
		return 0, fmt.Errorf("%s, want %s", s, want)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s is outside [0, %d]", s, maxValue)
	}
	return v, nil
}

// integer reads a JSON integer in [lo, hi].
func integer(raw json.RawMessage, lo, hi int64) (int64, error) {
	if _, err := number(raw, "an integer"); err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		if f, _ := strconv.ParseFloat(string(raw), 64); f == math.Trunc(f) {
			return 0, fmt.Errorf("%s is outside [%d, %d]", raw, lo, hi)
		}
		return 0, fmt.Errorf("%s, want an integer", raw)
	}
	if v < lo || v > hi {
		return 0, fmt.Errorf("%d is outside [%d, %d]", v, lo, hi)
	}
	return v, nil
}
