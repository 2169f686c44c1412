package workloads

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// TraceWriter writes jobs as a job trace (see the package documentation of
// the format). Ids are the jobs' ID fields in decimal.
type TraceWriter struct {
	w         *bufio.Writer
	csv       *csv.Writer
	format    JobFormat
	catalogue []string
	names     map[*Behaviour]string
	byName    map[string]*Behaviour
	line      []byte
	cells     []string
	last      time.Duration
	n         int
}

// NewTraceWriter writes a trace of the given format (jsonl or csv) to w.
// catalogue names the models by index; classNames names the behaviour
// classes jobs may carry (ClassNames(generator.Classes())). A job with a
// Plan behaviour is written with its plan.
func NewTraceWriter(w io.Writer, format JobFormat, catalogue []string, classNames map[*Behaviour]string) (*TraceWriter, error) {
	if format != JobJSONL && format != JobCSV {
		return nil, fmt.Errorf("unknown trace format %q (want jsonl or csv)", string(format))
	}
	tw := &TraceWriter{w: bufio.NewWriterSize(w, 64<<10), format: format, catalogue: catalogue, names: classNames,
		byName: make(map[string]*Behaviour, len(classNames))}
	for b, name := range classNames {
		tw.byName[name] = b
	}
	if format == JobCSV {
		tw.csv = csv.NewWriter(tw.w)
		tw.cells = make([]string, numFields)
		if err := tw.csv.Write(fieldNames[:]); err != nil {
			return nil, err
		}
	}
	return tw, nil
}

// Write appends one job. It refuses a job the format cannot carry or a
// reader would reject: out of order, an unknown model or class, a grading
// behaviour other than the one the reader derives.
func (tw *TraceWriter) Write(job Job) error {
	class, grading, err := tw.check(job)
	if err != nil {
		return fmt.Errorf("job %d: %w", job.ID, err)
	}
	tw.last = job.Arrival
	tw.n++
	if tw.format == JobCSV {
		return tw.writeCSV(job, class, grading)
	}
	tw.line = tw.appendJSON(tw.line[:0], job, class, grading)
	_, err = tw.w.Write(tw.line)
	return err
}

// check refuses what a reader would reject; else it returns the job's class
// name ("" for a plan job) and grading model ("" for none).
func (tw *TraceWriter) check(job Job) (class, grading string, err error) {
	if job.Arrival < 0 || (tw.n > 0 && job.Arrival < tw.last) {
		return "", "", fmt.Errorf("arrival %v out of order (previous %v)", job.Arrival, tw.last)
	}
	if job.Model < 0 || job.Model >= len(tw.catalogue) {
		return "", "", fmt.Errorf("model index %d outside the catalogue", job.Model)
	}
	for _, s := range []struct{ name, v string }{{"account", job.Account}, {"project", job.Project}, {"batch", job.Batch}} {
		if s.v == "" {
			return "", "", fmt.Errorf("%s: empty", s.name)
		}
	}
	for _, tier := range []int8{job.AccountTier, job.ProjectTier, job.BatchTier} {
		if tier < 0 || tier > 100 {
			return "", "", fmt.Errorf("tier %d outside 0..100", tier)
		}
	}
	if job.Behaviour == nil {
		return "", "", errors.New("no behaviour")
	}
	class, isClass := tw.names[job.Behaviour]
	plan := job.Behaviour.Plan
	if plan == nil && !isClass {
		return "", "", errors.New("behaviour is not one of the named classes")
	}
	if plan != nil {
		if err := plan.Validate("plan"); err != nil {
			return "", "", err
		}
		class = ""
	}
	if job.Judge < 0 {
		return class, "", nil
	}
	if err := tw.checkGrading(job); err != nil {
		return "", "", err
	}
	return class, tw.catalogue[job.Judge], nil
}

// checkGrading checks a graded job's grading behaviour is the one a reader
// derives: the class's grading class, or a single call.
func (tw *TraceWriter) checkGrading(job Job) error {
	if job.Judge >= len(tw.catalogue) {
		return fmt.Errorf("judge model index %d outside the catalogue", job.Judge)
	}
	want := (*Behaviour)(nil)
	if gr := job.Behaviour.Grading; job.Behaviour.Plan == nil && gr != nil {
		want = tw.byName[gr.Behaviour]
	}
	jb := job.JudgeBehaviour
	switch {
	case jb == nil:
		return errors.New("grading job without a behaviour")
	case want != nil && jb != want && *jb != *want:
		return fmt.Errorf("grading behaviour is not the class's grading class %q", job.Behaviour.Grading.Behaviour)
	case want == nil && *jb != SingleCall(400):
		return errors.New("grading behaviour is not a single call, which is all a trace can carry here")
	}
	return nil
}

// writeCSV writes a checked job as a CSV row.
func (tw *TraceWriter) writeCSV(job Job, class, grading string) error {
	c := tw.cells
	c[fV] = strconv.Itoa(TraceVersion)
	c[fID] = strconv.FormatInt(job.ID, 10)
	c[fArrival] = formatSeconds(job.Arrival)
	c[fAccount], c[fProject], c[fBatch] = job.Account, job.Project, job.Batch
	for i, tier := range []int8{job.AccountTier, job.ProjectTier, job.BatchTier} {
		c[fAccountTier+i] = ""
		if tier != 0 {
			c[fAccountTier+i] = strconv.Itoa(int(tier))
		}
	}
	c[fModel] = tw.catalogue[job.Model]
	c[fGrading] = grading
	c[fClass], c[fPlan] = class, ""
	if plan := job.Behaviour.Plan; plan != nil {
		c[fPlan] = plan.String()
	}
	c[fSeed] = strconv.FormatUint(job.Seed, 10)
	return tw.csv.Write(c)
}

// appendJSON appends a checked job as a JSON Lines record.
func (tw *TraceWriter) appendJSON(b []byte, job Job, class, grading string) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, TraceVersion, 10)
	b = appendJSONField(b, "id", strconv.FormatInt(job.ID, 10))
	b = append(b, `,"arrival_s":`...)
	b = appendSeconds(b, job.Arrival)
	b = appendJSONField(b, "account", job.Account)
	b = appendJSONField(b, "project", job.Project)
	b = appendJSONField(b, "batch", job.Batch)
	for i, tier := range []int8{job.AccountTier, job.ProjectTier, job.BatchTier} {
		if tier != 0 {
			b = append(b, ',', '"')
			b = append(b, fieldNames[fAccountTier+i]...)
			b = append(b, '"', ':')
			b = strconv.AppendInt(b, int64(tier), 10)
		}
	}
	b = appendJSONField(b, "model", tw.catalogue[job.Model])
	if grading != "" {
		b = appendJSONField(b, "grading", grading)
	}
	if plan := job.Behaviour.Plan; plan != nil {
		b = append(b, `,"plan":`...)
		b = plan.AppendJSON(b)
	} else {
		b = appendJSONField(b, "class", class)
	}
	b = append(b, `,"seed":`...)
	b = strconv.AppendUint(b, job.Seed, 10)
	return append(b, '}', '\n')
}

// Flush writes out what is buffered.
func (tw *TraceWriter) Flush() error {
	if tw.csv != nil {
		tw.csv.Flush()
		if err := tw.csv.Error(); err != nil {
			return err
		}
	}
	return tw.w.Flush()
}

// appendJSONField appends ,"name":"value" with value escaped as JSON.
func appendJSONField(b []byte, name, v string) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			q, _ := json.Marshal(v)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, v...)
	return append(b, '"')
}

// WriteTrace writes every job of src as a job trace and returns how many it
// wrote. See NewTraceWriter for the arguments.
func WriteTrace(w io.Writer, format JobFormat, src Source, catalogue []string, classNames map[*Behaviour]string) (int, error) {
	tw, err := NewTraceWriter(w, format, catalogue, classNames)
	if err != nil {
		return 0, err
	}
	n := 0
	for job, ok := src.Next(); ok; job, ok = src.Next() {
		if err := tw.Write(job); err != nil {
			return n, err
		}
		n++
	}
	if err := src.Err(); err != nil {
		return n, err
	}
	return n, tw.Flush()
}
