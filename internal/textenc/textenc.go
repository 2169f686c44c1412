package textenc

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// Magic numbers and byte-order marks.
var (
	gzipMagic = []byte{0x1f, 0x8b}
	utf8BOM   = []byte{0xef, 0xbb, 0xbf}
)

// Problem describes what head (the first bytes of an input, a few hundred
// are enough) is if it is not UTF-8 text, or "" if it may be. gz says the
// input is already being read through gzip: gzip inside it is then nested.
func Problem(head []byte, gz bool) string {
	switch {
	case bytes.HasPrefix(head, gzipMagic) && gz:
		return "gzip inside gzip: decompress it once (gunzip) and read the inner file"
	case bytes.HasPrefix(head, gzipMagic):
		return "gzip-compressed: decompress it (gunzip)"
	case bytes.HasPrefix(head, []byte{0xff, 0xfe, 0, 0}), bytes.HasPrefix(head, []byte{0, 0, 0xfe, 0xff}):
		return "UTF-32: convert to UTF-8 (iconv -f UTF-32 -t UTF-8)"
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}), bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		return "UTF-16: convert to UTF-8 (iconv -f UTF-16 -t UTF-8)"
	}
	if utf16Like(head) {
		return "UTF-16: convert to UTF-8 (iconv -f UTF-16 -t UTF-8)"
	}
	head = bytes.TrimPrefix(head, utf8BOM)
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return fmt.Sprintf("binary data (a NUL byte at offset %d): not a text file", i)
	}
	// The last few bytes may be a rune cut by the end of head.
	for i := 0; i < len(head); {
		r, n := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && n == 1 && len(head)-i >= utf8.UTFMax {
			return fmt.Sprintf("not UTF-8 text (byte 0x%02x at offset %d): convert it to UTF-8", head[i], i)
		}
		i += n
	}
	return ""
}

// utf16Like: UTF-16 without a byte-order mark, read from ASCII text, has a
// NUL in every other byte.
func utf16Like(head []byte) bool {
	if len(head) < 4 {
		return false
	}
	n := min(len(head), 256) &^ 1
	even, odd := 0, 0
	for i := 0; i < n; i += 2 {
		if head[i] == 0 {
			even++
		}
		if head[i+1] == 0 {
			odd++
		}
	}
	pairs := n / 2
	return (odd*4 >= pairs*3 && even == 0) || (even*4 >= pairs*3 && odd == 0)
}

// TrimBOM drops a UTF-8 byte-order mark at the start of data.
func TrimBOM(data []byte) []byte { return bytes.TrimPrefix(data, utf8BOM) }
