package workloads

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io"
	"strconv"
	"strings"
	"time"
)

func (t *TraceReader) build() (job Job, field, msg string) {
	r := &t.raw
	// An empty string in an optional field is an absent one, as in CSV.
	for _, f := range []int{fGrading, fClass, fPlan} {
		if r[f].kind == 's' && len(r[f].text) == 0 {
			r[f] = rawField{}
		}
	}
	// v first: a different version may mean different fields.
	if !r[fV].present() {
		return job, "v", fmt.Sprintf("missing (the format version, %d)", TraceVersion)
	}
	if v, err := t.uintField(fV, 1<<31); err != "" {
		return job, "v", err
	} else if v != TraceVersion {
		return job, "v", fmt.Sprintf("unsupported version %d (this reader reads %d)", v, TraceVersion)
	}
	for _, f := range []int{fID, fArrival, fAccount, fProject, fBatch, fModel} {
		if !r[f].present() {
			return job, fieldNames[f], "missing"
		}
	}
	if !r[fClass].present() && !r[fPlan].present() {
		return job, "class", "missing: a job needs a class or a plan"
	}
	for _, f := range []int{fID, fAccount, fProject, fBatch, fModel, fGrading, fClass} {
		if r[f].present() && r[f].kind != 's' && r[f].kind != 'c' {
			return job, fieldNames[f], "want a string, got " + kindName(r[f].kind)
		}
	}
	for _, f := range []int{fID, fAccount, fProject, fBatch, fModel} {
		if r[f].kind == 's' && len(r[f].text) == 0 {
			return job, fieldNames[f], "empty"
		}
	}
	t.id = append(t.id[:0], r[fID].text...)
	// arrival
	if err := t.wantNumber(fArrival); err != "" {
		return job, "arrival_s", err
	}
	arrival, err := parseSeconds(string(r[fArrival].text))
	if err != nil {
		return job, "arrival_s", err.Error()
	}
	if arrival < 0 {
		return job, "arrival_s", fmt.Sprintf("must be >= 0, got %s", r[fArrival].text)
	}
	job.Arrival = arrival
	// tiers
	for i, f := range []int{fAccountTier, fProjectTier, fBatchTier} {
		if !r[f].present() {
			continue
		}
		v, err := t.uintField(f, 100)
		if err != "" {
			return job, fieldNames[f], err
		}
		switch i {
		case 0:
			job.AccountTier = int8(v)
		case 1:
			job.ProjectTier = int8(v)
		default:
			job.BatchTier = int8(v)
		}
	}
	// seed
	if r[fSeed].present() {
		v, err := t.uintField(fSeed, 1<<64-1)
		if err != "" {
			return job, "seed", err
		}
		job.Seed = v
	} else {
		job.Seed = Stream(0, string(t.id))
	}
	// class or plan
	var class *Behaviour
	switch {
	case r[fClass].present() && r[fPlan].present():
		return job, "plan", "a job has a class or a plan, not both"
	case r[fPlan].present():
		plan, err := t.plan()
		if err != nil {
			return job, "plan", err.Error()
		}
		if err := plan.Validate("plan"); err != nil {
			return job, "plan", strings.TrimPrefix(err.Error(), "plan: ")
		}
		job.Behaviour = PlanBehaviour(plan)
	default:
		var ok bool
		if class, ok = t.classes[string(r[fClass].text)]; !ok {
			return job, "class", fmt.Sprintf("unknown behaviour class %q (the scenario has %s)", r[fClass].text, strings.Join(sortedNames(t.classes), ", "))
		}
		job.Behaviour = class
	}
	// models
	var ok bool
	if job.Model, ok = t.models[string(r[fModel].text)]; !ok {
		return job, "model", fmt.Sprintf("unknown model %q", r[fModel].text)
	}
	job.Judge = -1
	if r[fGrading].present() && len(r[fGrading].text) > 0 {
		if job.Judge, ok = t.models[string(r[fGrading].text)]; !ok {
			return job, "grading", fmt.Sprintf("unknown model %q", r[fGrading].text)
		}
		job.JudgeBehaviour = t.single
		if jb := t.judgeOf[class]; class != nil && jb != nil {
			job.JudgeBehaviour = jb
		}
	}
	// order, then uniqueness
	if t.haveLast && job.Arrival < t.last {
		return job, "arrival_s", fmt.Sprintf("out of order: %s s is before the previous job's %s s", formatSeconds(job.Arrival), formatSeconds(t.last))
	}
	if t.ids != nil {
		h := maphash.Bytes(t.seedHash, t.id)
		if first, dup := t.ids[h]; dup {
			return job, "id", fmt.Sprintf("duplicate id %q (first at line %d)", t.id, first)
		}
		t.ids[h] = int32(min(t.line, 1<<31-1))
	}
	t.last, t.haveLast = job.Arrival, true
	job.Account = intern(&t.account, r[fAccount].text)
	job.Project = intern(&t.project, r[fProject].text)
	job.Batch = intern(&t.batch, r[fBatch].text)
	return job, "", ""
}

// intern returns b as a string, reusing *last when equal.
func intern(last *string, b []byte) string {
	if string(b) != *last {
		*last = string(b)
	}
	return *last
}

// wantNumber checks a JSON field is a number (CSV cells are parsed later).
func (t *TraceReader) wantNumber(f int) string {
	if k := t.raw[f].kind; k != 'n' && k != 'c' {
		return "want a number, got " + kindName(k)
	}
	return ""
}

// uintField reads an unsigned integer field no larger than max.
func (t *TraceReader) uintField(f int, max uint64) (uint64, string) {
	if err := t.wantNumber(f); err != "" {
		return 0, err
	}
	s := string(t.raw[f].text)
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v > max {
		return 0, fmt.Sprintf("want an integer in [0, %d], got %s", max, strconv.Quote(s))
	}
	return v, ""
}

// plan reads the plan field: a JSON array, or the compact encoding (a JSON
// string, or a CSV cell not starting with '[').
func (t *TraceReader) plan() (*CallPlan, error) {
	f := t.raw[fPlan]
	switch f.kind {
	case 'a':
		return parseJSONPlan(f.text)
	case 's':
		return ParseCompactPlan(string(f.text))
	case 'c':
		if f.text[0] == '[' {
			if !json.Valid(f.text) {
				return nil, fmt.Errorf("invalid JSON plan %q", f.text)
			}
			return parseJSONPlan(f.text)
		}
		return ParseCompactPlan(string(f.text))
	}
	return nil, fmt.Errorf("want an array of turns or a compact plan string, got %s", kindName(f.kind))
}

// TraceReport is what ValidateTrace found.
type TraceReport struct {
	Records int          // records read (not counting a CSV header or blank lines)
	Valid   int          // good records
	Errors  []TraceError // every bad record's first problem, in file order
	// Of the good records:
	ClassJobs, PlanJobs, Graded int
	First, Last                 time.Duration // first and last arrival
}

// ValidateTrace reads a whole job trace, streaming, and reports every bad
// record with its line and field. Ids are checked for uniqueness, which
// keeps a 64-bit hash and a line per id: memory O(jobs), some 20 to 40
// bytes a job (two different ids colliding in 64 bits, which would be
// reported as a duplicate, has odds of about n²/2⁶⁵). The error is for a
// problem that stops the reading (an unknown format, a bad CSV header, an I/O error);
// bad records are in the report, with nil error.
func ValidateTrace(r io.Reader, name, format string, catalogue []string, classes map[string]*Behaviour) (TraceReport, error) {
	var rep TraceReport
	tr := NewTraceReader(r, name, format, catalogue, classes, TraceOptions{
		SkipInvalid: true, UniqueIDs: true,
		OnSkip: func(e TraceError) { rep.Errors = append(rep.Errors, e) },
	})
	for job, ok := tr.Next(); ok; job, ok = tr.Next() {
		if rep.Valid == 0 {
			rep.First = job.Arrival
		}
		rep.Last = job.Arrival
		rep.Valid++
		if job.Behaviour.Plan != nil {
			rep.PlanJobs++
		} else {
			rep.ClassJobs++
		}
		if job.Judge >= 0 {
			rep.Graded++
		}
	}
	rep.Records = tr.Records()
	return rep, tr.Err()
}
