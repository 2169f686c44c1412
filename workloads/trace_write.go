package workloads

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
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
	format    string
	catalogue []string
	names     map[*Behaviour]string
	byName    map[string]*Behaviour
	line      []byte
	cells     []string
	last      time.Duration
	n         int
}

// NewTraceWriter writes a trace of the given format ("jsonl" or "csv") to w.
// catalogue names the models by index; classNames names the behaviour
// classes jobs may carry (ClassNames(generator.Classes())). A job with a
// Plan behaviour is written with its plan.
func NewTraceWriter(w io.Writer, format string, catalogue []string, classNames map[*Behaviour]string) (*TraceWriter, error) {
	if format != "jsonl" && format != "csv" {
		return nil, fmt.Errorf("unknown trace format %q (want jsonl or csv)", format)
	}
	tw := &TraceWriter{w: bufio.NewWriterSize(w, 64<<10), format: format, catalogue: catalogue, names: classNames,
		byName: make(map[string]*Behaviour, len(classNames))}
	for b, name := range classNames {
		tw.byName[name] = b
	}
	if format == "csv" {
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
	bad := func(format string, args ...any) error {
		return fmt.Errorf("job %d: %s", job.ID, fmt.Sprintf(format, args...))
	}
	if job.Arrival < 0 || (tw.n > 0 && job.Arrival < tw.last) {
		return bad("arrival %v out of order (previous %v)", job.Arrival, tw.last)
	}
	if job.Model < 0 || job.Model >= len(tw.catalogue) {
		return bad("model index %d outside the catalogue", job.Model)
	}
	for _, s := range []struct{ name, v string }{{"account", job.Account}, {"project", job.Project}, {"batch", job.Batch}} {
		if s.v == "" {
			return bad("%s: empty", s.name)
		}
	}
	for _, tier := range []int8{job.AccountTier, job.ProjectTier, job.BatchTier} {
		if tier < 0 || tier > 100 {
			return bad("tier %d outside 0..100", tier)
		}
	}
	if job.Behaviour == nil {
		return bad("no behaviour")
	}
	class, isClass := tw.names[job.Behaviour]
	plan := job.Behaviour.Plan
	if plan == nil && !isClass {
		return bad("behaviour is not one of the named classes")
	}
	if plan != nil {
		if err := plan.Validate("plan"); err != nil {
			return bad("%v", err)
		}
	}
	grading := ""
	if job.Judge >= 0 {
		if job.Judge >= len(tw.catalogue) {
			return bad("judge model index %d outside the catalogue", job.Judge)
		}
		grading = tw.catalogue[job.Judge]
		want := (*Behaviour)(nil)
		if gr := job.Behaviour.Grading; plan == nil && gr != nil {
			want = tw.byName[gr.Behaviour]
		}
		jb := job.JudgeBehaviour
		switch {
		case jb == nil:
			return bad("grading job without a behaviour")
		case want != nil && jb != want && *jb != *want:
			return bad("grading behaviour is not the class's grading class %q", job.Behaviour.Grading.Behaviour)
		case want == nil && *jb != SingleCall(400):
			return bad("grading behaviour is not a single call, which is all a trace can carry here")
		}
	}
	tw.last = job.Arrival
	tw.n++
	id := strconv.FormatInt(job.ID, 10)
	if tw.format == "csv" {
		c := tw.cells
		c[fV] = strconv.Itoa(TraceVersion)
		c[fID] = id
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
		c[fClass], c[fPlan] = "", ""
		if plan != nil {
			c[fPlan] = plan.String()
		} else {
			c[fClass] = class
		}
		c[fSeed] = strconv.FormatUint(job.Seed, 10)
		return tw.csv.Write(c)
	}
	b := append(tw.line[:0], `{"v":`...)
	b = strconv.AppendInt(b, TraceVersion, 10)
	b = appendJSONField(b, "id", id)
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
	if plan != nil {
		b = append(b, `,"plan":`...)
		b = plan.AppendJSON(b)
	} else {
		b = appendJSONField(b, "class", class)
	}
	b = append(b, `,"seed":`...)
	b = strconv.AppendUint(b, job.Seed, 10)
	b = append(b, '}', '\n')
	tw.line = b
	_, err := tw.w.Write(b)
	return err
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
func WriteTrace(w io.Writer, format string, src Source, catalogue []string, classNames map[*Behaviour]string) (int, error) {
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
