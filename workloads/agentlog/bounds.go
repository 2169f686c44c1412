package agentlog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/internal/textenc"
)

// maxLogLine bounds a line of a line-based log (a TraceLab round trace),
// so an endless line (/dev/zero, a corrupt file) is refused when it passes
// the limit, not when memory runs out.
const maxLogLine = 16 << 20

// maxLogRecords bounds the records (rounds, spans) one import reads, so an
// input that never ends (a named pipe fed forever) is refused rather than
// read until memory or disk runs out. A variable for the tests.
var maxLogRecords = 10_000_000

// errTooManyRecords is the sentinel of a read stopped by maxLogRecords.
var errTooManyRecords = errors.New("more records than an import reads")

// textInput reads a log as UTF-8 text: UTF-16 or UTF-32, binary data and
// gzip not named .gz are refused at once, with what the file is (not as a
// bad record per line); a UTF-8 byte-order mark is dropped.
func textInput(r io.Reader, name string, gz bool) (*bufio.Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(512)
	if p := textenc.Problem(head, gz); p != "" {
		if gz && bytes.HasPrefix(p2b(p), p2b("gzip-compressed")) {
			p = "gzip inside gzip: decompress it once (gunzip) and read the inner file"
		}
		return nil, &field.Error{File: name, Line: 1, Msg: p}
	}
	if bytes.HasPrefix(head, []byte("\ufeff")) {
		br.Discard(len("\ufeff"))
	}
	return br, nil
}

func p2b(s string) []byte { return []byte(s) }

// readLine reads one line of at most maxLogLine bytes (its newline kept);
// the error of a longer one names the file and the line.
func readLine(br *bufio.Reader, name string, line int) ([]byte, error) {
	var long []byte
	for {
		frag, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, frag...)
			if len(long) > maxLogLine {
				return nil, &field.Error{File: name, Line: line, Msg: fmt.Sprintf("a line longer than %d bytes: not a log of this format", maxLogLine)}
			}
			continue
		}
		if long != nil {
			frag = append(long, frag...)
		}
		if len(frag) > maxLogLine {
			return nil, &field.Error{File: name, Line: line, Msg: fmt.Sprintf("a line longer than %d bytes: not a log of this format", maxLogLine)}
		}
		return frag, err
	}
}

// tooMany is the error of the record past maxLogRecords.
func tooMany(name string, line int) error {
	return &field.Error{File: name, Line: line, Msg: fmt.Sprintf("more than %d records: %v (split the logs, or an input that never ends?)", maxLogRecords, errTooManyRecords)}
}
