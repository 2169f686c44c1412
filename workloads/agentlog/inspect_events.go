package agentlog

import (
	"fmt"
	"strings"
	"time"

	"github.com/evalsched/lab/workloads"
)

// An Inspect sample's events as the lab's calls and tools: a model event's
// timing, tokens and provider time, a tool event's span, each refused with
// the field at fault when its recorded values cannot be a call's.

// inspectCall reads a model event; a non-empty string says why it cannot.
func inspectCall(e *inspectEvent, h *inspectHeader) (Call, string) {
	var c Call
	if e.Timestamp == "" {
		return c, "no timestamp"
	}
	start, err := parseTime(e.Timestamp)
	if err != nil {
		return c, "timestamp: " + err.Error()
	}
	if len(e.Error) > 0 && string(e.Error) != "null" {
		return c, "the call failed: " + truncate(string(e.Error), 80)
	}
	o := e.Output
	if o == nil {
		return c, "no output"
	}
	if len(o.Error) > 0 && string(o.Error) != "null" {
		return c, "output.error: " + truncate(string(o.Error), 80)
	}
	// Either time may make the call's interval or its working time: one
	// that cannot be a duration refuses the call.
	var outTime, working int64
	if o.Time != nil {
		if outTime, err = durationField("output.time", *o.Time); err != nil {
			return c, err.Error()
		}
	}
	if e.WorkingTime != nil {
		if working, err = durationField("working_time", *e.WorkingTime); err != nil {
			return c, err.Error()
		}
	}
	var end int64
	switch {
	case e.Completed != "":
		end, err = parseTime(e.Completed)
		if err != nil {
			return c, "completed: " + err.Error()
		}
	case o.Time != nil:
		end = start + outTime // older logs: no completed
		c.EndEstimated = true
	default:
		return c, "no end time (neither completed nor output.time)"
	}
	if end < start {
		return c, "completed before its timestamp"
	}
	if time.Duration(end-start) > workloads.MaxDuration {
		return c, fmt.Sprintf("completed %v after its timestamp, longer than a year (the longest span a trace holds)", time.Duration(end-start))
	}
	u := o.Usage
	if u == nil || u.InputTokens == nil || u.OutputTokens == nil {
		return c, "no output.usage input_tokens and output_tokens"
	}
	read, write := deref(u.CacheRead), deref(u.CacheWrite)
	in := *u.InputTokens
	// Providers differ: OpenAI's input_tokens include the cache reads,
	// Anthropic's exclude reads and writes. total_tokens (input + cache +
	// output as Inspect adds them) settles which; without it, an input
	// smaller than its cached parts cannot include them.
	switch {
	case deref(u.Reasoning) > 0 && u.TotalTokens != nil && *u.TotalTokens == in+*u.OutputTokens+deref(u.Reasoning):
		// Google's convention (see below): total holds the reasoning.
	case u.TotalTokens != nil && *u.TotalTokens-*u.OutputTokens >= in:
		in = *u.TotalTokens - *u.OutputTokens
	case in < read+write:
		in += read + write
	}
	if in < 0 || *u.OutputTokens < 0 || read < 0 || write < 0 || read+write > in {
		return c, fmt.Sprintf("inconsistent usage (input %d, output %d, cache read %d, cache write %d)", *u.InputTokens, *u.OutputTokens, read, write)
	}
	model := e.Model
	if model == "" {
		model = h.Eval.Model
	}
	if model == "" {
		return c, "no model"
	}
	out := *u.OutputTokens
	// Google's usage counts reasoning apart from output (total = input +
	// output + reasoning); OpenAI's and Anthropic's output includes it.
	// Reasoning is generated (and billed) as output, so it is output here.
	if r := deref(u.Reasoning); r > 0 && u.TotalTokens != nil && *u.TotalTokens == *u.InputTokens+*u.OutputTokens+r {
		out += r
		in = *u.InputTokens
		if in < read+write {
			in += read + write
		}
	}
	c = Call{Start: start, End: end, Model: model, In: in, Out: out, Retries: e.Retries, EndEstimated: c.EndEstimated}
	switch {
	case working > 0:
		c.Working = time.Duration(working)
	case outTime > 0:
		// output.time is the successful try's time in every version
		// (working_time, from 0.3.71, is the same figure).
		c.Working = time.Duration(outTime)
	}
	c.CacheRead, c.CacheWrite, c.MaxTokens = read, write, deref(e.Config.MaxTokens)
	if i := strings.IndexByte(model, '/'); i > 0 {
		c.Provider = model[:i]
	}
	return c, ""
}

// durationField is durationNs with the field named in its error.
func durationField(name string, s float64) (int64, error) {
	d, msg := durationNs(s)
	if msg != "" {
		return 0, fmt.Errorf("%s: %s", name, msg)
	}
	return d, nil
}

func inspectTool(e *inspectEvent) (Tool, string) {
	var t Tool
	start, err := parseTime(e.Timestamp)
	if err != nil {
		return t, "timestamp: " + err.Error()
	}
	end := start
	switch {
	case e.Completed != "":
		if end, err = parseTime(e.Completed); err != nil {
			return t, "completed: " + err.Error()
		}
	case e.WorkingTime != nil:
		d, err := durationField("working_time", *e.WorkingTime)
		if err != nil {
			return t, err.Error()
		}
		end = start + d
	}
	return Tool{Start: start, End: end, Name: e.Function, Failed: e.Failed != nil && *e.Failed}, ""
}
