package workloads

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/internal/input"
)

// Call is one request of a public LLM request trace: when it arrives and its
// tokens. Such traces carry no job, project or model: they replay open-loop
// production traffic, or serve as empirical token-length distributions.
type Call struct {
	Arrival time.Duration
	In, Out int
	// MaxTokens is the max_tokens the request asked for (0: the trace
	// does not say).
	MaxTokens int
}

// CallSource yields calls in non-decreasing arrival order, one at a time.
type CallSource interface {
	// Next returns the next call; ok is false at the end or on error.
	Next() (Call, bool)
	// Err is the error that ended the stream early, if any.
	Err() error
}

// ReplayOptions shape a request trace's arrivals. With the zero value the
// trace plays once in real time from 0.
//
// A record at raw time t (relative to the file's first record) arrives at
//
//	Offset + (k·span + t)/Speedup
//
// on its k-th pass (k = 0 without Loop), where span is the time from the
// first record to the last: a looped trace restarts right at its last
// record. Calls at or after Horizon are not yielded.
type ReplayOptions struct {
	// Speedup divides the trace's times: 0 or 1 is real time, 2 twice as fast.
	Speedup float64
	// Loop restarts after the last record, shifted by the trace's span, until
	// Horizon (which Loop needs).
	Loop bool
	// Offset is added to every arrival.
	Offset time.Duration
	// Horizon stops the replay at this arrival time; 0 = the end of the file.
	Horizon time.Duration
	// Model, Team and Key select a gateway trace's calls (RequestGateway):
	// those on Model, and of Team and of Key when they are set (empty:
	// any). Arrivals stay relative to the file's first call and a loop's
	// span is the whole file's, so streams cut from one trace keep their
	// timing against each other. Other formats carry none of them: Team
	// and Key are refused there, Model is ignored.
	Model, Team, Key string
}

// OpenRequestTrace opens a public request trace for streaming replay: a
// file (gzip-compressed when its name ends in .gz), or a trace built into
// the binary by its "embedded:" name (EmbeddedTraces).
//
//   - "azure": the Azure LLM inference trace, CSV with the header
//     TIMESTAMP,ContextTokens,GeneratedTokens and optionally MaxTokens
//     (columns in any order, extra columns ignored; a blank MaxTokens is
//     none); TIMESTAMP like 2023-11-16 18:17:03.9799600 (Go
//     layout 2006-01-02 15:04:05.9999999); CRLF or LF line ends, trailing
//     newline optional.
//   - "mooncake": the Mooncake trace, JSON Lines with timestamp
//     (milliseconds from the start), input_length, output_length and
//     optionally max_tokens; other fields (hash_ids) are ignored.
//   - "gateway": a gateway's request log as `sim trace import --from
//     litellm` writes it, JSON Lines (requests_gateway.go); only the calls
//     opt selects (Model, Team, Key) are yielded.
//   - "": inferred from the extension, .csv azure, .jsonl mooncake.
//
// Arrivals are relative to the first record and must not decrease. Errors
// are of the form FILE:LINE: field: problem. The caller closes the Closer.
func OpenRequestTrace(path string, format RequestFormat, opt ReplayOptions) (CallSource, io.Closer, error) {
	format, err := requestFormat(path, format)
	if err != nil {
		return nil, nil, err
	}
	if err := opt.validate(); err != nil {
		return nil, nil, err
	}
	if format != RequestGateway && (opt.Team != "" || opt.Key != "") {
		return nil, nil, field.Errorf("team", "only a gateway trace (format gateway) records teams and keys; %s is %s", path, format)
	}
	if err := input.Rereadable(path, "a request trace is read from its start by each run and each loop"); err != nil {
		return nil, nil, err
	}
	f, closer, err := openTraceFile(path)
	if err != nil {
		return nil, nil, err
	}
	r := &requestReader{f: f, name: path, format: format, opt: opt}
	if r.opt.Speedup == 0 {
		r.opt.Speedup = 1
	}
	r.rewind()
	return r, closer, nil
}

func (o ReplayOptions) validate() error {
	if !(o.Speedup >= 0) || math.IsInf(o.Speedup, 0) {
		return field.Errorf("speedup", "must be >= 0 and finite, got %g", o.Speedup)
	}
	if o.Horizon < 0 {
		return field.Errorf("horizon", "must be >= 0, got %v", o.Horizon)
	}
	if o.Loop && o.Horizon == 0 {
		return field.Errorf("loop", "needs a horizon")
	}
	return nil
}

// requestReader streams one request trace; with Loop it seeks back to the
// start after the last record.
type requestReader struct {
	f      io.ReadSeeker
	name   string
	format RequestFormat
	opt    ReplayOptions

	// A looping trace's first pass, replayed from memory by the later
	// passes when it has at most maxCachedRecords records.
	cache   []cachedRecord
	ci      int
	noCache bool

	// per pass
	br   *bufio.Reader
	cr   *csv.Reader
	cols [4]int // azure: TIMESTAMP, ContextTokens, GeneratedTokens, MaxTokens (optional: -1)
	// lastMax is the max_tokens of the record read last (0: none given).
	lastMax int
	line    int
	pass    int
	inPass  int // records read in this pass (a gateway trace's: the selected)
	seen    int // records read in this pass, selected or not

	t0      time.Time     // azure: the first record's time
	haveT0  bool          // t0 / ms0 set
	ms0     float64       // mooncake, gateway: the first record's timestamp
	gw      gatewayLine   // gateway: the last record read
	prevRaw time.Duration // previous raw time in this pass
	span    time.Duration // last raw time of the first pass
	records int           // records in one pass
	err     error
	done    bool
}

func (r *requestReader) Err() error { return r.err }

func (r *requestReader) fail(line int, path, format string, args ...any) {
	r.err = &field.Error{File: r.name, Line: line, Path: path, Msg: fmt.Sprintf(format, args...)}
	r.done = true
}

// rewind starts a pass from the top of the file.
func (r *requestReader) rewind() {
	if _, err := r.f.Seek(0, io.SeekStart); err != nil {
		r.err, r.done = err, true
		return
	}
	r.line, r.inPass, r.seen, r.prevRaw = 0, 0, 0, 0
	in, err := traceInput(r.f, r.name)
	if err != nil {
		r.err, r.done = err, true
		return
	}
	if r.br == nil {
		r.br = bufio.NewReaderSize(in, 64<<10)
	} else {
		r.br.Reset(in)
	}
	if r.format == "azure" {
		r.cr = csv.NewReader(r.br)
		r.cr.ReuseRecord = true
		r.cr.FieldsPerRecord = -1
		r.readAzureHeader()
	}
}

// Next returns the next call of the replay.
func (r *requestReader) Next() (Call, bool) {
	for !r.done {
		raw, in, out, ok := r.nextRaw()
		if r.done {
			return Call{}, false
		}
		if !ok { // end of a pass
			if r.pass == 0 && r.seen == 0 {
				// Replayed, a trace without requests reads as a production
				// that sent nothing: a silent "no outage" (#45).
				what := "the file holds no record"
				if r.format == "azure" {
					what = "the file ends after its header"
				}
				r.fail(r.line+1, "record", "no request: %s (a request trace needs at least one)", what)
				return Call{}, false
			}
			if r.pass == 0 {
				r.records, r.span = r.inPass, r.prevRaw
			}
			if !r.opt.Loop || r.records == 0 {
				r.done = true
				return Call{}, false
			}
			if r.span == 0 {
				r.fail(r.line, "timestamp", "cannot loop: the trace spans no time")
				return Call{}, false
			}
			r.pass++
			if r.cache != nil {
				r.ci = 0 // the next pass replays the first from memory
			} else {
				r.rewind()
			}
			continue
		}
		at := r.opt.Offset + r.scale(time.Duration(r.pass)*r.span+raw)
		if r.opt.Horizon > 0 && at >= r.opt.Horizon || at >= farArrival {
			r.done = true
			return Call{}, false
		}
		return Call{Arrival: at, In: in, Out: out, MaxTokens: r.lastMax}, true
	}
	return Call{}, false
}

// farArrival is past the end of any run (MaxDuration): a slowed record
// that far (speedup 1e-300) ends the replay, as one past the horizon does.
const farArrival = 2 * MaxDuration

func (r *requestReader) scale(d time.Duration) time.Duration {
	if r.opt.Speedup == 1 {
		return d
	}
	// Saturated before the conversion, which would overflow.
	f := math.Round(float64(d) / r.opt.Speedup)
	if f >= float64(farArrival) {
		return farArrival
	}
	return time.Duration(f)
}

// maxCachedRecords is the most records of a looping trace kept in memory
// (24 bytes each) so that its later passes read no file: a short trace
// looped over a long run would otherwise be read and parsed again
// thousands of times a virtual second.
const maxCachedRecords = 1 << 20

// cachedRecord is one record of a looping trace's first pass.
type cachedRecord struct {
	raw             time.Duration
	in, out, maxTok int32
}

// nextRaw is readRaw, or after the first pass of a looping trace that fit
// in maxCachedRecords, the first pass again from memory.
func (r *requestReader) nextRaw() (raw time.Duration, in, out int, ok bool) {
	if r.pass > 0 && r.cache != nil {
		if r.ci == len(r.cache) {
			return 0, 0, 0, false
		}
		c := r.cache[r.ci]
		r.ci++
		r.lastMax = int(c.maxTok)
		return c.raw, int(c.in), int(c.out), true
	}
	raw, in, out, ok = r.readRaw()
	if r.pass == 0 && r.opt.Loop && ok {
		if !r.noCache && len(r.cache) < maxCachedRecords {
			r.cache = append(r.cache, cachedRecord{raw: raw, in: int32(in), out: int32(out), maxTok: int32(r.lastMax)})
		} else {
			r.cache, r.noCache = nil, true // too long: later passes read the file
		}
	}
	return raw, in, out, ok
}

// readRaw reads the next record of the pass: its time relative to the file's
// first record and its tokens; ok is false at the end of the pass.
func (r *requestReader) readRaw() (raw time.Duration, in, out int, ok bool) {
	for {
		switch r.format {
		case RequestAzure:
			raw, in, out, ok = r.readAzure()
		case RequestGateway:
			raw, in, out, ok = r.readGateway()
		default:
			raw, in, out, ok = r.readMooncake()
		}
		if !ok || r.done {
			return 0, 0, 0, false
		}
		if raw < r.prevRaw {
			col := "TIMESTAMP"
			if r.format != RequestAzure {
				col = "timestamp"
			}
			r.fail(r.line, col, "out of order: %s s after the first record, before the previous record's %s s", formatSeconds(raw), formatSeconds(r.prevRaw))
			return 0, 0, 0, false
		}
		r.prevRaw = raw
		r.seen++
		if r.format == RequestGateway && !r.gw.selected(r.opt) {
			continue // another stream's call: it still counts for order and span
		}
		r.inPass++
		return raw, in, out, true
	}
}

func (r *requestReader) tokens(col, s string) (int, bool) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || v < 0 || v > maxPlanTokens {
		r.fail(r.line, col, "want a token count (an integer in [0, %d]), got %q", maxPlanTokens, s)
		return 0, false
	}
	return int(v), true
}

// sinceFirst is a record's time in ms as the time since the trace's first
// record; a time more than MaxDuration after it fails the read.
func (r *requestReader) sinceFirst(ms float64) (time.Duration, bool) {
	if !r.haveT0 {
		r.ms0, r.haveT0 = ms, true
	}
	if ms-r.ms0 > float64(MaxDuration/time.Millisecond) {
		r.fail(r.line, "timestamp", "%g ms is more than %v after the first record", ms, MaxDuration)
		return 0, false
	}
	// Before the first record it is out of order; said here, since far
	// before (1e300 ms first) the conversion below would overflow.
	if ms < r.ms0 {
		r.fail(r.line, "timestamp", "out of order: %g ms is before the first record's %g ms", ms, r.ms0)
		return 0, false
	}
	return time.Duration(math.Round((ms - r.ms0) * 1e6)), true
}

// maxLine bounds one line of a trace, so a binary or corrupt file cannot make
// a reader hold it whole.
const maxLine = 16 << 20

// readLine returns the next line without its line end (\n or \r\n); err is
// io.EOF for a last line without a newline (and an empty line at the end).
// The slice is valid until the next read.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		buf := append([]byte(nil), line...)
		for err == bufio.ErrBufferFull {
			line, err = br.ReadSlice('\n')
			buf = append(buf, line...)
			if len(buf) > maxLine {
				return nil, fmt.Errorf("line longer than %d bytes", maxLine)
			}
		}
		line = buf
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if err == nil {
		return line, nil
	}
	return line, io.EOF
}
