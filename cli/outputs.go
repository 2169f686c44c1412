package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/evalsched/lab/lab"
	"github.com/evalsched/lab/results"
)

// The files each command writes into its --out folder. The flag's help
// lists them and the command's last line names them, both from these
// lists; TestOutputsListed holds the lists against what a run leaves in
// the folder (sim's own marker, results.OutputMarker, aside).
var (
	runOutputs    = []string{"summary.json", "series.csv", "batches.csv", results.HeadlineFile}
	reportOutputs = []string{"report.html", "report.md", "figures/"}
	// A shard of compare --seeds: its seeds' runs whole, no headline.
	shardOutputs = []string{lab.CompareShardFile, "summary.json", "series.csv", "batches.csv"}
	sweepFiles   = []string{"sweep.csv", "summary.csv", "sweep.json", "points/"}
	tuneFiles    = []string{"tune.csv", "front.png"}
	// A shard of a sweep: its points, assembled by sim merge.
	sweepShardFiles = []string{"sweep.json", "points/"}
)

// outHelp is an --out flag's help: what goes in the folder.
func outHelp(files []string, more string) string {
	return "directory for " + andList(files) + more + " (created if missing)"
}

// andList is "a, b and c".
func andList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// wrote prints a command's last line: the folder and every file it wrote
// there, then any file written elsewhere (--otlp).
func wrote(w io.Writer, dir string, files []string, elsewhere ...string) {
	line := fmt.Sprintf("wrote %s/: %s", strings.TrimSuffix(dir, "/"), strings.Join(files, ", "))
	for _, e := range elsewhere {
		if e != "" {
			line += "; and " + e
		}
	}
	fmt.Fprintln(w, line)
}
