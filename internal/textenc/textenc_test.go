package textenc

import (
	"strings"
	"testing"
	"unicode/utf16"
)

func utf16le(s string, bom bool) []byte {
	var out []byte
	if bom {
		out = append(out, 0xff, 0xfe)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

func utf16be(s string) []byte {
	var out []byte
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u>>8), byte(u))
	}
	return out
}

// TestProblem: each encoding the lab cannot read is named; text (with or
// without a UTF-8 mark, with non-ASCII runes, with a rune cut at the end
// of the head) is not.
func TestProblem(t *testing.T) {
	text := "scenario: light-load\nseeds: [1, 2]\n"
	for _, tc := range []struct {
		name string
		head []byte
		gz   bool
		want string
	}{
		{"utf-8", []byte(text), false, ""},
		{"utf-8 with mark", append([]byte{0xef, 0xbb, 0xbf}, text...), false, ""},
		{"non-ascii", []byte("name: café — ünïcode\n"), false, ""},
		{"rune cut at the end", []byte("name: caf\xc3"), false, ""},
		{"utf-16le with mark", utf16le(text, true), false, "UTF-16"},
		{"utf-16le without mark", utf16le(text, false), false, "UTF-16"},
		{"utf-16be without mark", utf16be(text), false, "UTF-16"},
		{"utf-16be with mark", append([]byte{0xfe, 0xff}, utf16be(text)...), false, "UTF-16"},
		{"utf-32le", append([]byte{0xff, 0xfe, 0, 0}, 's', 0, 0, 0), false, "UTF-32"},
		{"gzip", []byte{0x1f, 0x8b, 8, 0}, false, "gzip-compressed"},
		{"nested gzip", []byte{0x1f, 0x8b, 8, 0}, true, "gzip inside gzip"},
		{"latin-1", []byte("name: caf\xe9 au lait\n"), false, "not UTF-8"},
		{"binary", []byte("ab\x00cd"), false, "NUL byte"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Problem(tc.head, tc.gz)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("Problem = %q, want one containing %q", got, tc.want)
			}
		})
	}
}
