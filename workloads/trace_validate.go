package workloads

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evalsched/lab/internal/field"
)

// build types the fields of a parsed record into a job. The error is the
// record's first problem, a *field.Error at the field (not yet located in
// the file), checked in the order the format documents.
func (t *TraceReader) build() (Job, error) {
	job := Job{Judge: -1}
	if err := t.checkShape(); err != nil {
		return job, err
	}
	t.id = append(t.id[:0], t.raw[fID].text...)
	if err := t.typeFields(&job); err != nil {
		return job, err
	}
	if err := t.resolve(&job); err != nil {
		return job, err
	}
	if err := t.checkID(); err != nil {
		return job, err
	}
	r := &t.raw
	job.Account = intern(&t.account, r[fAccount].text)
	job.Project = intern(&t.project, r[fProject].text)
	job.Batch = intern(&t.batch, r[fBatch].text)
	return job, nil
}

// checkShape checks the version, then that the required fields are there
// and the string fields are non-empty strings.
func (t *TraceReader) checkShape() error {
	r := &t.raw
	// An empty string in an optional field is an absent one, as in CSV.
	for _, f := range []int{fGrading, fClass, fPlan} {
		if r[f].kind == 's' && len(r[f].text) == 0 {
			r[f] = rawField{}
		}
	}
	// v first: a different version may mean different fields.
	if !r[fV].present() {
		return field.Errorf("v", "missing (the format version, %d)", TraceVersion)
	}
	if v, err := t.uintField(fV, 1<<31); err != nil {
		return err
	} else if v != TraceVersion {
		return field.Errorf("v", "unsupported version %d (this reader reads %d)", v, TraceVersion)
	}
	for _, f := range []int{fID, fArrival, fAccount, fProject, fBatch, fModel} {
		if !r[f].present() {
			return field.Errorf(fieldNames[f], "missing")
		}
	}
	if !r[fClass].present() && !r[fPlan].present() {
		return field.Errorf("class", "missing: a job needs a class or a plan")
	}
	for _, f := range []int{fID, fAccount, fProject, fBatch, fModel, fGrading, fClass} {
		if r[f].present() && r[f].kind != 's' && r[f].kind != 'c' {
			return field.Errorf(fieldNames[f], "want a string, got %s", kindName(r[f].kind))
		}
	}
	for _, f := range []int{fID, fAccount, fProject, fBatch, fModel} {
		if r[f].kind == 's' && len(r[f].text) == 0 {
			return field.Errorf(fieldNames[f], "empty")
		}
	}
	return nil
}

// typeFields reads the arrival, the tiers and the seed into job.
func (t *TraceReader) typeFields(job *Job) error {
	r := &t.raw
	if err := t.wantNumber(fArrival); err != nil {
		return err
	}
	arrival, err := parseSeconds(string(r[fArrival].text))
	if err != nil {
		return field.Under("arrival_s", err)
	}
	if arrival < 0 {
		return field.Errorf("arrival_s", "must be >= 0, got %s", r[fArrival].text)
	}
	job.Arrival = arrival
	for i, tier := range []*int8{&job.AccountTier, &job.ProjectTier, &job.BatchTier} {
		if f := fAccountTier + i; r[f].present() {
			v, err := t.uintField(f, 100)
			if err != nil {
				return err
			}
			*tier = int8(v)
		}
	}
	if !r[fSeed].present() {
		job.Seed = Stream(0, string(t.id))
		return nil
	}
	v, err := t.uintField(fSeed, 1<<64-1)
	job.Seed = v
	return err
}

// resolve sets the job's behaviour (its class or plan), model and grading
// model and behaviour against the scenario.
func (t *TraceReader) resolve(job *Job) error {
	r := &t.raw
	var class *Behaviour
	switch {
	case r[fClass].present() && r[fPlan].present():
		return field.Errorf("plan", "a job has a class or a plan, not both")
	case r[fPlan].present():
		plan, err := t.plan()
		if err != nil {
			return field.Under("plan", err)
		}
		if err := plan.Validate("plan"); err != nil {
			return err
		}
		job.Behaviour = PlanBehaviour(plan)
	default:
		var ok bool
		if class, ok = t.classes[string(r[fClass].text)]; !ok {
			return field.Errorf("class", "unknown behaviour class %q (the scenario has %s)", r[fClass].text, strings.Join(slices.Sorted(maps.Keys(t.classes)), ", "))
		}
		job.Behaviour = class
	}
	var ok bool
	if job.Model, ok = t.models[string(r[fModel].text)]; !ok {
		return field.Errorf("model", "unknown model %q", r[fModel].text)
	}
	if r[fGrading].present() && len(r[fGrading].text) > 0 {
		if job.Judge, ok = t.models[string(r[fGrading].text)]; !ok {
			return field.Errorf("grading", "unknown model %q", r[fGrading].text)
		}
		job.JudgeBehaviour = t.single
		if jb := t.judgeOf[class]; class != nil && jb != nil {
			job.JudgeBehaviour = jb
		}
	}
	return nil
}

// checkID checks (with UniqueIDs) that the id is new, and records it. The
// arrival order is checked by Next, one record ahead.
func (t *TraceReader) checkID() error {
	if t.ids != nil {
		h := maphash.Bytes(t.seedHash, t.id)
		if first, dup := t.ids[h]; dup {
			return field.Errorf("id", "duplicate id %q (first at line %d)", t.id, first)
		}
		t.ids[h] = int32(min(t.line, 1<<31-1))
	}
	return nil
}

// intern returns b as a string, reusing *last when equal.
func intern(last *string, b []byte) string {
	if string(b) != *last {
		*last = string(b)
	}
	return *last
}

// wantNumber checks a JSON field is a number (CSV cells are parsed later).
func (t *TraceReader) wantNumber(f int) error {
	if k := t.raw[f].kind; k != 'n' && k != 'c' {
		return field.Errorf(fieldNames[f], "want a number, got %s", kindName(k))
	}
	return nil
}

// uintField reads an unsigned integer field no larger than max.
func (t *TraceReader) uintField(f int, max uint64) (uint64, error) {
	if err := t.wantNumber(f); err != nil {
		return 0, err
	}
	s := string(t.raw[f].text)
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v > max {
		return 0, field.Errorf(fieldNames[f], "want an integer in [0, %d], got %s", max, strconv.Quote(s))
	}
	return v, nil
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
	Records int           // records read (not counting a CSV header or blank lines)
	Valid   int           // good records
	Errors  []*TraceError // every bad record's first problem, in file order
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
func ValidateTrace(r io.Reader, name string, format JobFormat, catalogue []string, classes map[string]*Behaviour) (TraceReport, error) {
	var rep TraceReport
	tr := NewTraceReader(r, name, format, catalogue, classes, TraceOptions{
		SkipInvalid: true, UniqueIDs: true,
		OnSkip: func(e *TraceError) { rep.Errors = append(rep.Errors, e) },
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
