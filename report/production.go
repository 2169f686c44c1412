package report

import (
	"fmt"
	"io"

	"github.com/evalsched/lab/results"
)

// WriteProductionTable prints each run's production streams (whole run):
// minutes of production outage, failed calls and 429s, then the answered
// and arrived calls. It prints nothing when no run has production traffic.
func WriteProductionTable(w io.Writer, s results.Summary) error {
	return writeTable(w, "production traffic (whole run; outage min = minutes with success rate below the threshold, failed min = minutes in which a call gave up):", productionTable(s))
}

// WriteFairnessTable prints each run's fairness (the report's Fairness
// table, whose note explains each column), in blocks of columns that fit
// the terminal.
func WriteFairnessTable(w io.Writer, s results.Summary) error {
	return writeTable(w, "fairness (measurement window; the report's Fairness table explains each column):", fairnessTable(s))
}

// writeTable prints a report table to a terminal under a title line,
// right-aligned; nothing when it has no rows.
func writeTable(w io.Writer, title string, t table) error {
	if len(t.Rows) == 0 {
		return nil
	}
	writeTitle(w, title)
	tw := newFitWriter(w)
	for _, row := range append([][]string{t.Head}, t.Rows...) {
		for _, c := range row {
			fmt.Fprint(tw, c, "\t")
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
