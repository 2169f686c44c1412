package workloads

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/internal/textenc"
)

// Trace files are opened the same way whatever their format: a file that is
// gzip-compressed (by its magic number) is read through gzip when its name
// ends in .gz and refused otherwise, and a UTF-8 byte-order mark at the
// start is dropped.

var (
	gzipMagic = []byte{0x1f, 0x8b}
	utf8BOM   = []byte("\ufeff")
)

// traceInput wraps r, the start of the file name, for reading as text:
// UTF-16 or UTF-32 text, binary data and gzip inside gzip are refused at
// once with what to do (not as a bad record per line), and no line may be
// longer than maxLine (an endless line, /dev/zero, fails when it passes
// the limit, not when memory runs out).
func traceInput(r io.Reader, name string) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	head, _ := br.Peek(len(gzipMagic))
	gz := false
	if bytes.Equal(head, gzipMagic) {
		if !strings.HasSuffix(strings.ToLower(name), ".gz") {
			return nil, &field.Error{File: name, Msg: "gzip-compressed; name it " + name + ".gz to read it compressed, or decompress it"}
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &field.Error{File: name, Msg: "gzip: " + err.Error()}
		}
		br = bufio.NewReaderSize(zr, 1<<20)
		gz = true
	}
	head, _ = br.Peek(512)
	if p := textenc.Problem(head, gz); p != "" && !strings.HasPrefix(p, "not UTF-8") {
		return nil, &field.Error{File: name, Msg: p}
	}
	if head, _ := br.Peek(len(utf8BOM)); bytes.Equal(head, utf8BOM) {
		br.Discard(len(utf8BOM))
	}
	return &boundedLines{r: br}, nil
}

// boundedLines fails a read once more than maxLine bytes have passed
// without a newline.
type boundedLines struct {
	r   io.Reader
	run int // bytes since the last newline
}

func (b *boundedLines) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if i := bytes.LastIndexByte(p[:n], '\n'); i >= 0 {
		b.run = n - 1 - i
	} else {
		b.run += n
	}
	if b.run > maxLine {
		return n, fmt.Errorf("a line longer than %d bytes: not a trace (or not of this format)", maxLine)
	}
	return n, err
}

// OpenTrace opens a trace file for reading as text (see traceInput): "-"
// is standard input, an "embedded:" name a trace built into the binary
// (EmbeddedTraces). The caller closes it.
func OpenTrace(path string) (io.Reader, io.Closer, error) {
	var in io.Reader
	var closer io.Closer
	if path == "-" {
		in, closer = os.Stdin, nopCloser{}
	} else {
		f, c, err := openTraceFile(path)
		if err != nil {
			return nil, nil, err
		}
		in, closer = f, c
	}
	r, err := traceInput(in, path)
	if err != nil {
		closer.Close()
		return nil, nil, err
	}
	return r, closer, nil
}

// withoutGz is a file name without a trailing .gz, for telling its format.
func withoutGz(name string) string {
	if strings.HasSuffix(strings.ToLower(name), ".gz") {
		return name[:len(name)-3]
	}
	return name
}
