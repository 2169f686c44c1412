package report

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// TestFitWriter: a table that fits prints as text/tabwriter's AlignRight
// would; a wider one in blocks of columns, each led by the first column,
// every line within TerminalColumns; a line without a tab passes through,
// wrapped.
func TestFitWriter(t *testing.T) {
	var b strings.Builder
	fw := newFitWriter(&b)
	fmt.Fprint(fw, "name\tx\t\nab\t1\t\n")
	fw.Flush()
	if diff := cmp.Diff("  name  x\n    ab  1\n", b.String()); diff != "" {
		t.Errorf("narrow table (-want +got):\n%s", diff)
	}

	b.Reset()
	fw = newFitWriter(&b)
	col := strings.Repeat("c", 38) // each column 40 wide with its padding
	fmt.Fprintf(fw, "k\t%s1\t%s2\t%s3\t\nrow\ta\tb\tc\t\n", col, col, col)
	fmt.Fprintln(fw, strings.Repeat("word ", 30))
	fw.Flush()
	want := "    k  " + col + "1  " + col + "2\n" +
		"  row  " + strings.Repeat(" ", 38) + "a  " + strings.Repeat(" ", 38) + "b\n" +
		"\n" +
		"    k  " + col + "3\n" +
		"  row  " + strings.Repeat(" ", 38) + "c\n"
	got := b.String()
	if !strings.HasPrefix(got, want) {
		t.Errorf("wide table (-want +got):\n%s", cmp.Diff(want, got))
	}
	for _, l := range strings.Split(got, "\n") {
		if utf8.RuneCountInString(l) > TerminalColumns {
			t.Errorf("line of %d columns: %q", utf8.RuneCountInString(l), l)
		}
	}
	if n := strings.Count(got, "word"); n != 30 {
		t.Errorf("the prose line lost words: %d of 30", n)
	}
}

// TestFitWriterKeyColumns: where the first column does not name a row
// alone (a lane per run), every block repeats as many leading columns as
// do.
func TestFitWriterKeyColumns(t *testing.T) {
	var b strings.Builder
	fw := newFitWriter(&b)
	col := strings.Repeat("c", 43)
	fmt.Fprintf(fw, "lane\trun\t%s1\t%s2\t\nm\told\t1\t2\t\nm\tnew\t3\t4\t\n", col, col)
	fw.Flush()
	blocks := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n\n")
	if len(blocks) != 2 {
		t.Fatalf("want 2 blocks, got %d:\n%s", len(blocks), b.String())
	}
	for _, run := range []string{"old", "new"} {
		if !strings.Contains(blocks[1], "m  "+run) {
			t.Errorf("the second block does not name run %s:\n%s", run, blocks[1])
		}
	}
}

func TestWrapLine(t *testing.T) {
	for _, tc := range []struct {
		s     string
		width int
		want  []string
	}{
		{"short", 10, []string{"short"}},
		{"aa bb cc dd", 5, []string{"aa bb", "  cc", "  dd"}},
		{"→→→ ×× a", 6, []string{"→→→ ××", "  a"}}, // runes, not bytes
		{"averyverylongword b", 5, []string{"averyverylongword", "  b"}},
	} {
		if diff := cmp.Diff(tc.want, WrapLine(tc.s, tc.width, "  ")); diff != "" {
			t.Errorf("WrapLine(%q, %d) (-want +got):\n%s", tc.s, tc.width, diff)
		}
	}
}

func TestLanesShown(t *testing.T) {
	for _, tc := range []struct {
		n, top int
		want   string
	}{
		{1, 10, "for its one lane"},
		{3, 10, "for all 3 lanes"},
		{11, 10, "for the 10 busiest lanes and the other 1 lane summed"},
		{12, 1, "for the busiest lane and the other 11 lanes summed"},
	} {
		if got := lanesShown(tc.n, tc.top, ""); got != tc.want {
			t.Errorf("lanesShown(%d, %d) = %q, want %q", tc.n, tc.top, got, tc.want)
		}
	}
}
