package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
)

// printSummary copies dir/summary.json (just written) to out: --json.
func printSummary(out, stderr io.Writer, dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return err
	}
	if _, err := out.Write(data); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s/summary.json and %s/series.csv\n", dir, dir)
	return nil
}

// version is the module's version and VCS revision from the build info
// (--version).
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v += " " + s.Value[:min(12, len(s.Value))]
		case "vcs.modified":
			if s.Value == "true" {
				v += "+dirty"
			}
		}
	}
	return v
}
