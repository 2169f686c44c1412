package cli

import (
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
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
// known (revision). Asked once per process: without the build's stamp the
// revision costs three child processes (go list, git twice; ~70 ms of CPU).
var version = sync.OnceValue(func() string { return moduleVersion(revision()) })

// stampedVersion is version from the build info alone, with no child
// process: the same string when the build stamped its revision (go build,
// go install), the module's version alone when it did not (go run, go
// test). newApp shows it until a command shows the version (runApp).
func stampedVersion() string { return moduleVersion(stampedRevision()) }

func moduleVersion(rev string) string {
	v := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	if rev != "" {
		v += " " + rev
	}
	return v
}
