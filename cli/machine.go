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

// version is the module's version and the VCS revision (--version):
// "devel" for a build outside a module version, the revision when it can be
// known (revision).
func version() string {
	v := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	if rev := revision(); rev != "" {
		v += " " + rev
	}
	return v
}
