package agentlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// lineReader counts lines under a json.Decoder so a value's line can be
// named from the decoder's offset. It keeps only what was read past the
// last offset asked about (about one decoder buffer), so memory does not
// grow with the file.
type lineReader struct {
	r       io.Reader
	pending []byte // bytes read but not yet counted, starting at offset base
	base    int64
	lines   int // newlines before base
}

func (l *lineReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.pending = append(l.pending, p[:n]...)
	return n, err
}

// lineAt is the 1-based line of the first byte at or after off that is
// not white space or a comma (where the next value starts). Offsets must
// not decrease between calls.
func (l *lineReader) lineAt(off int64) int {
	k := int(off - l.base)
	if k < 0 {
		k = 0
	}
	if k > len(l.pending) {
		k = len(l.pending)
	}
	l.lines += bytes.Count(l.pending[:k], []byte{'\n'})
	l.pending = l.pending[k:]
	l.base += int64(k)
	// Compact now and then so the buffer does not keep its old front.
	if cap(l.pending) > 1<<20 && len(l.pending) < cap(l.pending)/4 {
		l.pending = append([]byte(nil), l.pending...)
	}
	line := l.lines + 1
	for _, c := range l.pending {
		switch c {
		case '\n':
			line++
		case ' ', '\t', '\r', ',':
		default:
			return line
		}
	}
	return line
}

// stream is a json.Decoder with line numbers.
type stream struct {
	dec *json.Decoder
	lr  *lineReader
}

func newStream(r io.Reader) *stream {
	lr := &lineReader{r: r}
	return &stream{dec: json.NewDecoder(lr), lr: lr}
}

// line is the line where the next value starts.
func (s *stream) line() int { return s.lr.lineAt(s.dec.InputOffset()) }

// expectDelim reads a token and checks it is the delimiter d.
func (s *stream) expectDelim(d json.Delim, what string) error {
	tok, err := s.dec.Token()
	if err != nil {
		return err
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return fmt.Errorf("%s: want %q, got %v", what, d, tok)
	}
	return nil
}

// members walks an object's members: fn is called with the decoder at each
// value, which it must consume (decode or skip).
func (s *stream) members(what string, fn func(key string) error) error {
	if err := s.expectDelim('{', what); err != nil {
		return err
	}
	for s.dec.More() {
		tok, err := s.dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if err := fn(key); err != nil {
			return err
		}
	}
	_, err := s.dec.Token()
	return err
}

// elems walks an array: fn is called at each element, which it must consume.
func (s *stream) elems(what string, fn func(i int) error) error {
	if err := s.expectDelim('[', what); err != nil {
		return err
	}
	for i := 0; s.dec.More(); i++ {
		if err := fn(i); err != nil {
			return err
		}
	}
	_, err := s.dec.Token()
	return err
}

// skip consumes one value.
func (s *stream) skip() error {
	var v json.RawMessage
	return s.dec.Decode(&v)
}
