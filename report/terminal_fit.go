package report

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// TerminalColumns is the widest line the terminal's tables and titles
// print: a table wider than this is printed in blocks of columns, one under
// the other, each led by the table's first column (the row's name); the
// full rows are in --json and the report.
const TerminalColumns = 100

// fitWriter is the terminal's table writer: tab-terminated cells, right-
// aligned with two spaces of padding as text/tabwriter's AlignRight, but
// never wider than TerminalColumns. A line without a tab ends the table
// above it and is printed as it is (wrapped when too long).
type fitWriter struct {
	w   io.Writer
	buf bytes.Buffer
}

func newFitWriter(w io.Writer) *fitWriter { return &fitWriter{w: w} }

func (f *fitWriter) Write(p []byte) (int, error) { return f.buf.Write(p) }

// Flush prints what was written.
func (f *fitWriter) Flush() error {
	text := strings.TrimSuffix(f.buf.String(), "\n")
	f.buf.Reset()
	if text == "" {
		return nil
	}
	var rows [][]string
	var out strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if !strings.Contains(line, "\t") {
			writeFitted(&out, rows)
			rows = nil
			for _, l := range WrapLine(line, TerminalColumns, "  ") {
				out.WriteString(l + "\n")
			}
			continue
		}
		cells := strings.Split(line, "\t")
		if last := cells[len(cells)-1]; last == "" {
			cells = cells[:len(cells)-1] // the tab-terminated last cell
		}
		rows = append(rows, cells)
	}
	writeFitted(&out, rows)
	_, err := io.WriteString(f.w, out.String())
	return err
}

// writeFitted prints rows right-aligned, in blocks of columns that fit.
func writeFitted(out *strings.Builder, rows [][]string) {
	if len(rows) == 0 {
		return
	}
	const pad = 2
	var widths []int
	for _, r := range rows {
		for j, c := range r {
			if j == len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], utf8.RuneCountInString(c))
		}
	}
	// Blocks: the key columns, then as many of the next columns as fit.
	key := keyColumns(rows)
	first := make([]int, key)
	for j := range first {
		first[j] = j
	}
	blocks := [][]int{slices.Clone(first)}
	for j := key; j < len(widths); j++ {
		if last := blocks[len(blocks)-1]; len(last) > key && blockWidth(last, widths, pad)+widths[j]+pad > TerminalColumns {
			blocks = append(blocks, slices.Clone(first))
		}
		blocks[len(blocks)-1] = append(blocks[len(blocks)-1], j)
	}
	for b, cols := range blocks {
		if b > 0 {
			out.WriteString("\n")
		}
		for _, r := range rows {
			var line strings.Builder
			for _, j := range cols {
				c := ""
				if j < len(r) {
					c = r[j]
				}
				line.WriteString(strings.Repeat(" ", widths[j]+pad-utf8.RuneCountInString(c)))
				line.WriteString(c)
			}
			out.WriteString(strings.TrimRight(line.String(), " ") + "\n")
		}
	}
}

// keyColumns is how many leading columns name a row: the first, or as
// many as it takes for no two rows below the head to share them (a lane
// per run needs lane and run), at most three.
func keyColumns(rows [][]string) int {
	for k := 1; k < 3; k++ {
		seen := map[string]bool{}
		unique := true
		for _, r := range rows[1:] {
			id := strings.Join(r[:min(k, len(r))], "\t")
			if seen[id] && len(r) > k {
				unique = false
				break
			}
			seen[id] = true
		}
		if unique {
			return k
		}
	}
	return 3
}

func blockWidth(cols, widths []int, pad int) int {
	n := 0
	for _, j := range cols {
		n += widths[j] + pad
	}
	return n
}

// WrapLine breaks s at spaces into lines of at most width runes, the
// lines after the first indented; a word longer than a line stays whole.
func WrapLine(s string, width int, indent string) []string {
	if utf8.RuneCountInString(s) <= width {
		return []string{s}
	}
	var lines []string
	line, lineLen := "", 0
	for _, word := range strings.Split(s, " ") {
		wl := utf8.RuneCountInString(word)
		switch {
		case lineLen == 0 && len(lines) == 0:
			line, lineLen = word, wl
		case lineLen == 0:
			line, lineLen = indent+word, utf8.RuneCountInString(indent)+wl
		case lineLen+1+wl <= width:
			line, lineLen = line+" "+word, lineLen+1+wl
		default:
			lines = append(lines, line)
			line, lineLen = indent+word, utf8.RuneCountInString(indent)+wl
		}
	}
	return append(lines, line)
}

// writeTitle prints a table's title line, wrapped to TerminalColumns.
func writeTitle(w io.Writer, title string) {
	for _, l := range WrapLine(title, TerminalColumns, "  ") {
		fmt.Fprintln(w, l)
	}
}

// plural is "1 lane" or "N lanes".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// LineWrapper is a writer for the terminal's prose: each line longer than
// TerminalColumns is broken at spaces (the lines after the first indented
// two spaces); the tables, already fitted, pass through unchanged. Flush
// writes a last line without a newline.
type LineWrapper struct {
	w    io.Writer
	part []byte
}

// NewLineWrapper wraps the lines written to w.
func NewLineWrapper(w io.Writer) *LineWrapper { return &LineWrapper{w: w} }

func (l *LineWrapper) Write(p []byte) (int, error) {
	l.part = append(l.part, p...)
	for {
		i := bytes.IndexByte(l.part, '\n')
		if i < 0 {
			return len(p), nil
		}
		for _, line := range WrapLine(string(l.part[:i]), TerminalColumns, "  ") {
			if _, err := io.WriteString(l.w, line+"\n"); err != nil {
				return 0, err
			}
		}
		l.part = l.part[i+1:]
	}
}

// Flush writes what is left of a last line.
func (l *LineWrapper) Flush() error {
	if len(l.part) == 0 {
		return nil
	}
	_, err := l.Write([]byte("\n"))
	return err
}
