package workloads

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// TraceVersion is the version of the job-trace format, specified here (and
// in TRACE_FORMAT.md): a file of jobs a run replays instead of the synthetic
// generator.
//
// # Format (version 1)
//
// A job trace is JSON Lines (one JSON object per line) or CSV (a header row,
// then one row per job). TRACE_FORMAT.md has the same specification with
// examples. Every record is one job and carries the format version in its
// v field, so each line stands alone (files can be cut, concatenated or
// grepped). Fields:
//
//	field         type             required  meaning
//	v             integer          yes       format version: 1
//	id            string           yes       job id, unique in the file, non-empty
//	arrival_s     number           yes       arrival in seconds since the start (>= 0, non-decreasing)
//	account       string           yes       account id (non-empty)
//	project       string           yes       project id (non-empty)
//	batch         string           yes       batch id (non-empty)
//	account_tier  integer 0..100   no        tier set on the account; 0 or absent = inherit
//	project_tier  integer 0..100   no        tier set on the project; 0 or absent = inherit
//	batch_tier    integer 0..100   no        tier set on the batch; 0 or absent = inherit
//	model         string           yes       model name, one of the scenario's catalogue
//	grading       string           no        model of a chained grading job; absent or "" = none
//	class         string           one of    behaviour class (a key of the scenario's workload.behaviours)
//	plan          see below        one of    explicit call plan
//	seed          unsigned 64-bit  no        seeds the job's agent loop; absent = derived from id
//
// A job has exactly one of class and plan. A class job draws its turns,
// calls, tokens and tool time from the class with its seed, exactly as a
// generated job with that class and seed does; so a generated trace replays
// identically. A plan job makes exactly the calls its plan lists; its seed
// only drives each call's latency variation. The grading job of a class job
// has the behaviour the class's grading.behaviour names (a single call when
// it names none or the class has no grading block); a plan job's grading job
// is a single call. arrival_s is decimal seconds, read exactly to the
// nanosecond when it has at most nine fraction digits.
//
// JSON Lines: one object per line with the fields above; strings are JSON
// strings and numbers JSON numbers (a string where a number belongs is an
// error, and the reverse); null counts as absent. Unknown and repeated
// fields are errors. Blank lines are skipped. The plan is an array of turns,
// each {"calls": [[IN, OUT], ...], "tool_s": SECONDS} ("tool_s" optional,
// default 0), or a string in the compact encoding below:
//
//	{"v":1,"id":"j1","arrival_s":0.5,"account":"a","project":"a/p1","batch":"b1","model":"gpt-5.5","class":"agentic","seed":42}
//	{"v":1,"id":"j2","arrival_s":1,"account":"a","project":"a/p1","batch":"b1","model":"gpt-5.5","plan":[{"calls":[[1200,300],[1200,280]],"tool_s":2.5},{"calls":[[2100,450]]}]}
//
// CSV (RFC 4180): the first row names the columns, in any order; v, id,
// arrival_s, account, project, batch, model and at least one of class and
// plan are required columns, the others optional; unknown or repeated
// column names are errors. An empty cell is an absent field. Every row has
// as many cells as the header. The plan cell holds the compact encoding, or
// the JSON array above when it starts with '['. The compact encoding lists
// turns separated by ';', each turn its calls IN:OUT separated by '+',
// optionally followed by /TOOL_SECONDS:
//
//	v,id,arrival_s,account,project,batch,account_tier,project_tier,batch_tier,model,grading,class,seed,plan
//	1,j2,1,a,a/p1,b1,,,,gpt-5.5,,,,1200:300+1200:280/2.5;2100:450
//
// # Errors
//
// Every problem is reported as FILE:LINE: FIELD: problem, FIELD being the
// field (column) at fault or "record" for the line as a whole (invalid
// JSON, a truncated last line, a row with the wrong number of cells). A
// record is checked in this order, and only its first problem is reported:
// syntax, unknown fields, v, missing fields, types and ranges of each field,
// class and plan, the model, the grading model and the class against the
// scenario, arrival order (against the last good record), and, when asked
// (TraceOptions.UniqueIDs, always in ValidateTrace), a duplicate id.
//
// # Memory
//
// A TraceReader holds one record at a time; its memory does not grow with
// the trace, except for UniqueIDs, which keeps a 64-bit hash and a line
// number per id (some 20 to 40 bytes a job; ValidateTrace always does
// this), and Skipped, which keeps the skipped records' errors unless OnSkip
// takes them.
const TraceVersion = 1

// TraceFormats are the job-trace formats.
var TraceFormats = []string{"jsonl", "csv"}

// TraceFormat resolves a job-trace format name, inferring it from the file
// name's extension when format is empty (.jsonl, .ndjson, .json: jsonl;
// .csv: csv).
func TraceFormat(name, format string) (string, error) {
	switch format {
	case "jsonl", "csv":
		return format, nil
	case "":
		switch strings.ToLower(filepath.Ext(name)) {
		case ".jsonl", ".ndjson", ".json":
			return "jsonl", nil
		case ".csv":
			return "csv", nil
		}
		return "", fmt.Errorf("%s: cannot infer the trace format from the extension (want .jsonl or .csv, or give the format)", name)
	}
	return "", fmt.Errorf("unknown trace format %q (want jsonl or csv)", format)
}

// TraceError is one problem in a trace file: FILE:LINE: FIELD: problem.
type TraceError struct {
	File  string
	Line  int
	Field string // "record" for the record as a whole
	Msg   string
}

func (e TraceError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
}

// TraceOptions tune a TraceReader.
type TraceOptions struct {
	// SkipInvalid skips bad records (see Skipped) instead of stopping at the
	// first. Errors that make the rest unreadable (a bad CSV header, an I/O
	// error) still stop the reader.
	SkipInvalid bool
	// UniqueIDs checks that ids do not repeat. It keeps a hash per id, so
	// memory grows with the trace (some 20 to 40 bytes a job).
	UniqueIDs bool
	// OnSkip, if set, receives each skipped record's error instead of the
	// reader keeping it for Skipped.
	OnSkip func(TraceError)
}

// The fields of a record, in the order the writer emits them.
const (
	fV = iota
	fID
	fArrival
	fAccount
	fProject
	fBatch
	fAccountTier
	fProjectTier
	fBatchTier
	fModel
	fGrading
	fClass
	fSeed
	fPlan
	numFields
)

var fieldNames = [numFields]string{"v", "id", "arrival_s", "account", "project", "batch",
	"account_tier", "project_tier", "batch_tier", "model", "grading", "class", "seed", "plan"}

func fieldIndex(name string) int {
	for i, n := range fieldNames {
		if n == name {
			return i
		}
	}
	return -1
}

// A rawField is one field of a record before it is typed: for JSON the
// token's kind and text (a string's decoded content), for CSV the cell.
type rawField struct {
	kind byte // 's' string, 'n' number, 'a' array, 'o' object, 'b' bool, 'z' null, 'c' CSV cell
	text []byte
}

func (f rawField) present() bool {
	return f.kind != 0 && f.kind != 'z' && !(f.kind == 'c' && len(f.text) == 0)
}

func kindName(k byte) string {
	switch k {
	case 's':
		return "a string"
	case 'n':
		return "a number"
	case 'a':
		return "an array"
	case 'o':
		return "an object"
	case 'b':
		return "a boolean"
	}
	return "null"
}

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

	rawOK  bool       // the record parsed (else recErr says why)
	recErr TraceError // the current record's problem

	skipped  []TraceError
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
func (t *TraceReader) Skipped() []TraceError { return t.skipped }

// SkippedCount is the number of records skipped so far.
func (t *TraceReader) SkippedCount() int { return t.nSkipped }

// Records is the number of records read so far, good or bad.
func (t *TraceReader) Records() int { return t.records }

// Line is the line of the record last read.
func (t *TraceReader) Line() int { return t.line }

// ID is the trace id of the job last returned by Next.
func (t *TraceReader) ID() string { return string(t.id) }

func (t *TraceReader) fatal(line int, field, format string, args ...any) {
	t.err = TraceError{File: t.name, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
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
		job, field, msg := t.build()
		if field != "" {
			t.recErr = TraceError{File: t.name, Line: t.line, Field: field, Msg: msg}
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
func (t *TraceReader) badRecord(field, format string, args ...any) {
	t.rawOK = false
	t.recErr = TraceError{File: t.name, Line: t.line, Field: field, Msg: fmt.Sprintf(format, args...)}
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
func (t *TraceReader) parseJSON(line []byte, last bool) {
	if !json.Valid(line) {
		var msg string
		if jerr := json.Unmarshal(line, new(json.RawMessage)); jerr != nil {
			msg = jerr.Error()
		}
		msg = strings.TrimPrefix(msg, "json: ")
		if last {
			t.badRecord("record", "truncated last line (no newline at the end, and not a complete JSON object: %s)", msg)
		} else {
			t.badRecord("record", "invalid JSON: %s", msg)
		}
		return
	}
	i := skipWS(line, 0)
	if line[i] != '{' {
		t.badRecord("record", "want a JSON object, got %s", kindName(jsonKind(line[i])))
		return
	}
	i = skipWS(line, i+1)
	for line[i] != '}' {
		kEnd := skipValue(line, i)
		key := line[i+1 : kEnd-1]
		var keyStr string
		if bytes.IndexByte(key, '\\') >= 0 {
			_ = json.Unmarshal(line[i:kEnd], &keyStr)
		} else {
			keyStr = string(key) // not retained: compared below
		}
		i = skipWS(line, kEnd)
		i = skipWS(line, i+1) // ':'
		vEnd := skipValue(line, i)
		val := line[i:vEnd]
		f := fieldIndex(keyStr)
		if f < 0 {
			t.badRecord(keyStr, "unknown field (known: %s)", strings.Join(fieldNames[:], ", "))
			return
		}
		if t.raw[f].kind != 0 {
			t.badRecord(keyStr, "repeated field")
			return
		}
		k := jsonKind(val[0])
		text := val
		if k == 's' {
			text = val[1 : len(val)-1]
			if bytes.IndexByte(text, '\\') >= 0 {
				var s string
				_ = json.Unmarshal(val, &s)
				start := len(t.scratch)
				t.scratch = append(t.scratch, s...)
				text = t.scratch[start:]
			}
		}
		t.raw[f] = rawField{kind: k, text: text}
		i = skipWS(line, vEnd)
		if line[i] == ',' {
			i = skipWS(line, i+1)
		}
	}
}

func jsonKind(c byte) byte {
	switch c {
	case '"':
		return 's'
	case '[':
		return 'a'
	case '{':
		return 'o'
	case 't', 'f':
		return 'b'
	case 'n':
		return 'z'
	}
	return 'n'
}

// skipWS skips JSON white space from i.
func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value starting at i; b is valid JSON.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		for i++; ; i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipValue(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
		i++
	}
	return i
}

// jsonElems calls fn for each element of the JSON array b (valid JSON).
func jsonElems(b []byte, fn func(elem []byte) error) error {
	i := skipWS(b, 1)
	for b[i] != ']' {
		end := skipValue(b, i)
		if err := fn(b[i:end]); err != nil {
			return err
		}
		i = skipWS(b, end)
		if b[i] == ',' {
			i = skipWS(b, i+1)
		}
	}
	return nil
}

// jsonMembers calls fn for each member of the JSON object b (valid JSON).
func jsonMembers(b []byte, fn func(key string, val []byte) error) error {
	i := skipWS(b, 1)
	for b[i] != '}' {
		kEnd := skipValue(b, i)
		var key string
		if err := json.Unmarshal(b[i:kEnd], &key); err != nil {
			return err
		}
		i = skipWS(b, kEnd)
		i = skipWS(b, i+1)
		vEnd := skipValue(b, i)
		if err := fn(key, b[i:vEnd]); err != nil {
			return err
		}
		i = skipWS(b, vEnd)
		if b[i] == ',' {
			i = skipWS(b, i+1)
		}
	}
	return nil
}

// parseJSONPlan reads a plan given as a JSON array of turns (valid JSON).
func parseJSONPlan(b []byte) (*CallPlan, error) {
	if b[0] != '[' {
		return nil, fmt.Errorf("want an array of turns or a compact plan string, got %s", kindName(jsonKind(b[0])))
	}
	p := &CallPlan{}
	err := jsonElems(b, func(tb []byte) error {
		n := len(p.Turns) + 1
		if tb[0] != '{' {
			return fmt.Errorf("turn %d: want an object {\"calls\": [[IN, OUT], ...], \"tool_s\": S}, got %s", n, kindName(jsonKind(tb[0])))
		}
		var turn PlanTurn
		seen := false
		err := jsonMembers(tb, func(key string, v []byte) error {
			switch key {
			case "calls":
				seen = true
				if v[0] != '[' {
					return fmt.Errorf("turn %d: calls: want an array of [IN, OUT], got %s", n, kindName(jsonKind(v[0])))
				}
				return jsonElems(v, func(cb []byte) error {
					k := len(turn.Calls) + 1
					var elems [][]byte
					if cb[0] == '[' {
						_ = jsonElems(cb, func(x []byte) error {
							elems = append(elems, x)
							return nil
						})
					}
					if len(elems) != 2 || jsonKind(elems[0][0]) != 'n' || jsonKind(elems[1][0]) != 'n' {
						return fmt.Errorf("turn %d call %d: want [IN, OUT] (two integers), got %s", n, k, cb)
					}
					var c PlanCall
					var err error
					if c.In, err = parseTokens(string(elems[0])); err != nil {
						return fmt.Errorf("turn %d call %d: input tokens: %v", n, k, err)
					}
					if c.Out, err = parseTokens(string(elems[1])); err != nil {
						return fmt.Errorf("turn %d call %d: output tokens: %v", n, k, err)
					}
					turn.Calls = append(turn.Calls, c)
					return nil
				})
			case "tool_s":
				if jsonKind(v[0]) != 'n' {
					return fmt.Errorf("turn %d: tool_s: want a number, got %s", n, kindName(jsonKind(v[0])))
				}
				d, err := parseSeconds(string(v))
				if err != nil {
					return fmt.Errorf("turn %d: tool_s: %v", n, err)
				}
				turn.Tool = d
				return nil
			}
			return fmt.Errorf("turn %d: unknown field %q (want calls, tool_s)", n, key)
		})
		if err != nil {
			return err
		}
		if !seen {
			return fmt.Errorf("turn %d: calls: missing", n)
		}
		p.Turns = append(p.Turns, turn)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// countingReader counts the bytes read and remembers the last one and EOF,
// so the CSV reader can tell a last line without a newline.
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

// build types the fields of a parsed record into a job; field is non-empty
// (with msg) for the record's first problem.
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
