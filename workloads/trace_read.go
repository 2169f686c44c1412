package workloads

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"github.com/evalsched/lab/internal/field"
	"hash/maphash"
	"io"
	"strings"
	"time"
)

// TraceReader streams jobs from a job trace; it is a Source.
type TraceReader struct {
	name   string
	format string
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

	line    int
	raw     [numFields]rawField
	scratch []byte // decoded JSON strings with escapes
	id      []byte // id of the last record read

	records  int // records read (good or bad)
	emitted  int64
	last     time.Duration // arrival of the last good record
	haveLast bool
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
func NewTraceReader(r io.Reader, name, format string, catalogue []string, classes map[string]*Behaviour, opts TraceOptions) *TraceReader {
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

// Next returns the next good job. A bad record stops the reader (Err) or,
// with SkipInvalid, is skipped.
func (t *TraceReader) Next() (Job, bool) {
	for !t.done {
		ok := t.readRecord()
		if t.done || !ok {
			return Job{}, false
		}
		if !t.rawOK {
			if t.reject() {
				return Job{}, false
			}
			continue
		}
		job, err := t.build()
		if err != nil {
			t.recErr = t.locate(err)
			if t.reject() {
				return Job{}, false
			}
			continue
		}
		job.ID = t.emitted
		t.emitted++
		return job, true
	}
	return Job{}, false
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
			t.fatal(t.line+1, "record", "%v", err)
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
	t.fatal(t.line+1, "record", "%v", err)
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
		t.fatal(t.line+1, "record", "%v", err)
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
