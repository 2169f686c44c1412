package workloads

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"strings"

	"github.com/evalsched/lab/internal/field"
)

// Trace files are opened the same way whatever their format: a file that is
// gzip-compressed (by its magic number) is read through gzip when its name
// ends in .gz and refused otherwise, and a UTF-8 byte-order mark at the
// start is dropped.

var (
	gzipMagic = []byte{0x1f, 0x8b}
	utf8BOM   = []byte("\ufeff")
)

// traceInput wraps r, the start of the file name, for reading as text.
func traceInput(r io.Reader, name string) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	head, _ := br.Peek(len(gzipMagic))
	if bytes.Equal(head, gzipMagic) {
		if !strings.HasSuffix(strings.ToLower(name), ".gz") {
			return nil, &field.Error{File: name, Msg: "gzip-compressed; name it " + name + ".gz to read it compressed, or decompress it"}
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &field.Error{File: name, Msg: "gzip: " + err.Error()}
		}
		br = bufio.NewReaderSize(zr, 1<<20)
	}
	if head, _ := br.Peek(len(utf8BOM)); bytes.Equal(head, utf8BOM) {
		br.Discard(len(utf8BOM))
	}
	return br, nil
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
