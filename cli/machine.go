package cli

import (
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
)

// printSummary copies dir/summary.json (just written) to out: --json;
// then the command's last line on stderr.
func printSummary(out, stderr io.Writer, dir string, wroteLine func(io.Writer)) error {
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return err
	}
	if _, err := out.Write(data); err != nil {
		return err
	}
	wroteLine(stderr)
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
