package workloads

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"strings"
	"time"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/internal/input"
)

// TraceReader streams jobs from a job trace; it is a Source.
type TraceReader struct {
	name   string
	format JobFormat
	opts   TraceOptions

	models  map[string]int
	classes map[string]*Behaviour
	judgeOf map[*Behaviour]*Behaviour
	single  *Behaviour

	// JSON Lines
	br *bufio.Reader
	// CSV
	cr     *csv.Reader
	cw     *countingReader
	cols   []int // field of each column
	header int   // columns in the header

	line     int
	raw      [numFields]rawField
	scratch  []byte                            // decoded JSON strings with escapes
	setField func(quotedKey, val []byte) error // setJSONField, bound once
	id       []byte                            // id of the last record read

	records  int // records read (good or bad)
	emitted  int64
	last     time.Duration // arrival of the last record returned
	haveLast bool
	held     heldJob   // a good record waiting for its successors (order check)
	behind   []heldJob // records after held but behind it, in order among themselves
	queue    []heldJob // records to judge again (after a record that jumped ahead)
	ids      map[uint64]int32
	seedHash maphash.Seed

	// last strings, reused while they repeat (jobs of a batch)
	account, project, batch string

	rawOK  bool        // the record parsed (else recErr says why)
	recErr *TraceError // the current record's problem

	skipped  []*TraceError
	nSkipped int
	err      error
	done     bool
}

// NewTraceReader reads a job trace from r; name labels errors, format is
// "jsonl", "csv" or "" (inferred from name). Models are resolved against
// the catalogue, classes by name (build them with BehaviourClasses). A
// problem with the format or the CSV header is reported by Err.
func NewTraceReader(r io.Reader, name string, format JobFormat, catalogue []string, classes map[string]*Behaviour, opts TraceOptions) *TraceReader {
	t := &TraceReader{name: name, opts: opts, classes: classes, judgeOf: GradingBehaviours(classes)}
	single := SingleCall(400)
	t.single = &single
	t.models = make(map[string]int, len(catalogue))
	for i, m := range catalogue {
		if _, dup := t.models[m]; !dup {
			t.models[m] = i
		}
	}
	if opts.UniqueIDs {
		t.ids = make(map[uint64]int32)
		t.seedHash = maphash.MakeSeed()
	}
	f, err := TraceFormat(name, format)
	if err != nil {
		t.err, t.done = err, true
		return t
	}
	t.format = f
	if f == "jsonl" {
		t.br = bufio.NewReaderSize(r, 64<<10)
		return t
	}
	t.cw = &countingReader{r: r}
	t.cr = csv.NewReader(t.cw)
	t.cr.ReuseRecord = true
	t.cr.FieldsPerRecord = -1
	t.readHeader()
	return t
}

// Err is the error that stopped the reader, nil at a clean end.
func (t *TraceReader) Err() error { return t.err }

// Skipped is every record skipped so far (SkipInvalid without OnSkip).
func (t *TraceReader) Skipped() []*TraceError { return t.skipped }

// SkippedCount is the number of records skipped so far.
func (t *TraceReader) SkippedCount() int { return t.nSkipped }

// Records is the number of records read so far, good or bad.
func (t *TraceReader) Records() int { return t.records }

// Line is the line of the record last read.
func (t *TraceReader) Line() int { return t.line }

// ID is the trace id of the job last returned by Next.
func (t *TraceReader) ID() string { return string(t.id) }

func (t *TraceReader) fatal(line int, path, format string, args ...any) {
	t.err = &field.Error{File: t.name, Line: line, Path: path, Msg: fmt.Sprintf(format, args...)}
	t.done = true
}

// readFailed stops the reader on an error reading the file: at the record
// it was reading, or, for a pipe that stopped writing, as the pipe's own
// error (it names the file; a line of it would say nothing).
func (t *TraceReader) readFailed(err error) {
	if errors.Is(err, input.ErrIdle) {
		t.err, t.done = err, true
		return
	}
	t.fatal(t.line+1, "record", "%v", err)
}

// Next returns the next good job. A bad record stops the reader (Err) or,
// with SkipInvalid, is skipped.
func (t *TraceReader) Next() (Job, bool) {
	for {
		c, ok := t.nextCandidate()
		h := t.held
		switch {
		case !ok && !h.ok: // the end, or the reader stopped
			return Job{}, false
		case !ok: // the end: the records behind the held one are out of order
			if t.rejectBehind() {
				return Job{}, false
			}
			t.held = heldJob{}
			return t.emit(h.job), true
		case t.haveLast && c.job.Arrival < t.last || len(t.behind) > 0 && c.job.Arrival < t.behind[len(t.behind)-1].job.Arrival:
			// Behind a record it must follow: c alone is out of order.
			prev := t.last
			if len(t.behind) > 0 {
				prev = t.behind[len(t.behind)-1].job.Arrival
			}
			if t.rejectOrder(c, prev) {
				return Job{}, false
			}
		case !h.ok:
			t.held = c
		case c.job.Arrival >= h.job.Arrival:
			// The held record is in order; those behind it were not.
			if t.rejectBehind() {
				return Job{}, false
			}
			t.held = c
			return t.emit(h.job), true
		case len(t.behind) < jumpEvidence-1:
			t.behind = append(t.behind, c)
		default:
			// jumpEvidence records in order among themselves agree that the
			// held one jumped ahead: it alone is out of order, and they are
			// judged again without it.
			t.recErr = t.at(h.line, field.Errorf("arrival_s", "out of order: %s s is after the next %d jobs' (from %s s, line %d)",
				formatSeconds(h.job.Arrival), jumpEvidence, formatSeconds(t.behind[0].job.Arrival), t.behind[0].line))
			t.queue = append(append(t.queue, t.behind...), c)
			t.behind, t.held = t.behind[:0], heldJob{}
			if t.reject() {
				return Job{}, false
			}
		}
	}
}

// jumpEvidence is how many records after a record, in order among
// themselves but behind it, make that record (not them) the one out of
// order. With fewer (one record behind, then the end or a record ahead of
// both), the record behind is the one out of order.
const jumpEvidence = 2

// nextCandidate is the next record to judge: one read ahead and released
// again, else the next well-formed record of the file.
func (t *TraceReader) nextCandidate() (heldJob, bool) {
	if len(t.queue) > 0 {
		c := t.queue[0]
		t.queue = t.queue[1:]
		return c, true
	}
	return t.nextWellFormed()
}

// rejectBehind rejects the records found behind the held one.
func (t *TraceReader) rejectBehind() bool {
	for _, b := range t.behind {
		if t.rejectOrder(b, t.held.job.Arrival) {
			return true
		}
	}
	t.behind = t.behind[:0]
	return false
}

// rejectOrder rejects c for arriving before prev.
func (t *TraceReader) rejectOrder(c heldJob, prev time.Duration) bool {
	t.recErr = t.at(c.line, field.Errorf("arrival_s", "out of order: %s s is before the previous job's %s s",
		formatSeconds(c.job.Arrival), formatSeconds(prev)))
	return t.reject()
}

// heldJob is a record read ahead: whether its arrival is in order is known
// only from the record after it.
type heldJob struct {
	job  Job
	line int
	ok   bool
}

// emit returns a job in order.
func (t *TraceReader) emit(job Job) Job {
	t.last, t.haveLast = job.Arrival, true
	job.ID = t.emitted
	t.emitted++
	return job
}

// at places a problem at a line of the file.
func (t *TraceReader) at(line int, err error) *TraceError {
	fe := t.locate(err)
	fe.Line = line
	return fe
}

// nextWellFormed reads records until one is good on its own (everything
// but its order), rejecting the others.
func (t *TraceReader) nextWellFormed() (heldJob, bool) {
	for !t.done {
		ok := t.readRecord()
		if t.done || !ok {
			return heldJob{}, false
		}
		if !t.rawOK {
			if t.reject() {
				return heldJob{}, false
			}
			continue
		}
		job, err := t.build()
		if err != nil {
			t.recErr = t.locate(err)
			if t.reject() {
				return heldJob{}, false
			}
			continue
		}
		return heldJob{job: job, line: t.line, ok: true}, true
	}
	return heldJob{}, false
}

// reject handles a bad record (t.recErr); it reports whether the reader stops.
func (t *TraceReader) reject() bool {
	if !t.opts.SkipInvalid {
		t.err, t.done = t.recErr, true
		return true
	}
	t.nSkipped++
	if t.opts.OnSkip != nil {
		t.opts.OnSkip(t.recErr)
	} else {
		t.skipped = append(t.skipped, t.recErr)
	}
	return false
}

// badRecord marks the current record bad for a syntax-level problem.
func (t *TraceReader) badRecord(path, format string, args ...any) {
	t.rawOK = false
	t.recErr = t.locate(field.Errorf(path, format, args...))
}

// locate places a problem of the current record at its file and line.
func (t *TraceReader) locate(err error) *TraceError {
	var fe *field.Error
	errors.As(field.In(t.name, t.line, err), &fe)
	return fe
}

// readRecord reads the next record into t.raw; false at the end of the file
// or on a fatal error. A record that does not parse sets rawOK false.
func (t *TraceReader) readRecord() bool {
	t.raw = [numFields]rawField{}
	t.scratch = t.scratch[:0]
	t.rawOK = true
	if t.format == "csv" {
		return t.readCSV()
	}
	for {
		line, err := readLine(t.br)
		if err != nil && err != io.EOF {
			t.readFailed(err)
			return false
		}
		if len(line) == 0 && err == io.EOF {
			t.done = true
			return false
		}
		t.line++
		if len(bytes.TrimSpace(line)) == 0 {
			if err == io.EOF {
				t.done = true
				return false
			}
			continue
		}
		t.records++
		t.parseJSON(line, err == io.EOF)
		return true
	}
}

// parseJSON splits one JSON Lines record into t.raw.

type countingReader struct {
	r    io.Reader
	n    int64
	last byte
	eof  bool
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.n += int64(n)
		c.last = p[n-1]
	}
	if err == io.EOF {
		c.eof = true
	}
	return n, err
}

// readHeader reads the CSV header row and maps its columns to fields.
func (t *TraceReader) readHeader() {
	rec, err := t.cr.Read()
	if err == io.EOF {
		t.fatal(1, "header", "empty file (want a header row: %s)", strings.Join(fieldNames[:], ","))
		return
	}
	if err != nil {
		t.csvFatal(err)
		return
	}
	t.line = 1
	t.header = len(rec)
	t.cols = make([]int, len(rec))
	seen := make(map[int]bool)
	for i, h := range rec {
		h = strings.TrimSpace(h)
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		f := fieldIndex(h)
		if f < 0 {
			t.fatal(1, h, "unknown column (known: %s)", strings.Join(fieldNames[:], ", "))
			return
		}
		if seen[f] {
			t.fatal(1, h, "repeated column")
			return
		}
		seen[f] = true
		t.cols[i] = f
	}
	for _, f := range []int{fV, fID, fArrival, fAccount, fProject, fBatch, fModel} {
		if !seen[f] {
			t.fatal(1, fieldNames[f], "missing column")
			return
		}
	}
	if !seen[fClass] && !seen[fPlan] {
		t.fatal(1, "class", "missing column: a trace needs a class or a plan column")
	}
}

func (t *TraceReader) csvFatal(err error) {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		t.fatal(pe.Line, "record", "%v", pe.Err)
		return
	}
	t.readFailed(err)
}

// readCSV reads one CSV row into t.raw.
func (t *TraceReader) readCSV() bool {
	rec, err := t.cr.Read()
	if err == io.EOF {
		t.done = true
		return false
	}
	var pe *csv.ParseError
	if err != nil && !errors.As(err, &pe) {
		t.readFailed(err)
		return false
	}
	t.records++
	if pe != nil {
		// A quoting error: the reader resumes at the next line.
		t.line = pe.StartLine
		t.badRecord("record", "%v", pe.Err)
		return true
	}
	t.line, _ = t.cr.FieldPos(0)
	if len(rec) != t.header {
		atEnd := t.cw.eof && t.cw.last != '\n' && t.cr.InputOffset() == t.cw.n
		switch {
		case len(rec) < t.header && atEnd:
			t.badRecord("record", "truncated last line: %d of %d fields, and no newline at the end", len(rec), t.header)
		case len(rec) < t.header:
			t.badRecord("record", "too few fields: %d, the header has %d", len(rec), t.header)
		default:
			t.badRecord("record", "too many fields: %d, the header has %d", len(rec), t.header)
		}
		return true
	}
	for i, cell := range rec {
		t.raw[t.cols[i]] = rawField{kind: 'c', text: []byte(cell)}
	}
	return true
}
