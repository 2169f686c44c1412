package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evalsched/lab/workloads/agentlog"
	"github.com/urfave/cli/v2"
)

// Outputs never replace inputs: every command's outputs (--out, --otlp,
// --figures, replay-check's --json) are checked against its inputs
// (--scenario, --trace, --in, --map files, --fit-from, the arguments, and
// the logs a directory argument holds) before anything is read or run. A
// usage error (exit 2) names both flags.

// inputFlags name files or directories a command reads.
var inputFlags = []string{"scenario", "trace", "in", "map", "fit-from"}

// outputFlags name files or directories a command writes (or replaces);
// a boolean flag of the name (--json: print JSON) is no output.
var outputFlags = []string{"out", "otlp", "figures", "json"}

// logDirs are the commands that read every log a directory argument (or
// --fit-from directory) holds, and the logs' format: an output that is
// one of those logs is an input too.
var logDirs = map[string]func(c *cli.Context) (agentlog.Format, bool){
	"replay-check": func(*cli.Context) (agentlog.Format, bool) { return agentlog.Inspect, true },
	"import": func(c *cli.Context) (agentlog.Format, bool) {
		f, err := agentlog.ParseFormat(c.String("from"))
		return f, err == nil
	},
}

// dashOut are the commands whose --out - is standard output.
var dashOut = map[string]bool{"gen": true}

// readsOut are the commands for which --out may name an input: study
// --check reads the file it names and writes nothing.
func readsOut(c *cli.Context) bool {
	return c.Command.Name == "study" && c.Bool("check")
}

// checkOutputs refuses an output that is an input or holds one (a folder
// swapped in for the outputs would delete it), an --otlp that is a
// symbolic link (the rename would replace the link) or inside --out (the
// folder is replaced as a whole, and a file sim did not write there blocks
// the next run), and --out - or --otlp - where they would make a file
// named "-".
func checkOutputs(c *cli.Context) error {
	type named struct{ flag, path string }
	var ins, outs []named
	flagOf := func(flag string) cli.Flag {
		for _, f := range c.Command.Flags {
			for _, n := range f.Names() {
				if n == flag {
					return f
				}
			}
		}
		return nil
	}
	has := func(flag string) bool { return flagOf(flag) != nil }
	for _, f := range inputFlags {
		if !has(f) {
			continue
		}
		if _, ok := flagOf(f).(*cli.StringSliceFlag); ok {
			for _, v := range c.StringSlice(f) {
				ins = append(ins, named{"--" + f, v})
			}
		} else if v := c.String(f); v != "" {
			ins = append(ins, named{"--" + f, v})
		}
	}
	if c.Command.Name != "merge" { // merge refuses an overlap of --out and its shards itself (exit 1)
		for _, a := range c.Args().Slice() {
			ins = append(ins, named{"the argument", a})
		}
	}
	if format, ok := logDirs[c.Command.Name]; ok {
		if f, ok := format(c); ok {
			for _, in := range slices.Clone(ins) {
				if fi, err := os.Stat(in.path); err != nil || !fi.IsDir() {
					continue
				}
				logs, _ := agentlog.Expand(f, []string{in.path})
				for _, l := range logs {
					ins = append(ins, named{"a log of " + in.flag + " " + in.path + ",", l})
				}
			}
		}
	}
	for _, f := range outputFlags {
		if _, isBool := flagOf(f).(*cli.BoolFlag); has(f) && !isBool && c.String(f) != "" && !(f == "out" && readsOut(c)) {
			outs = append(outs, named{"--" + f, c.String(f)})
		}
	}
	for _, o := range outs {
		if o.path == "-" {
			if o.flag == "--out" && dashOut[c.Command.Name] {
				continue
			}
			if o.flag == "--otlp" {
				return usageErrorf(c, "%v", errOTLPStdout)
			}
			return usageErrorf(c, "%s -: sim %s writes a file, not standard output; give a path", o.flag, c.Command.Name)
		}
		for _, in := range ins {
			if within(in.path, o.path) {
				what := "is"
				if !same(in.path, o.path) {
					what = "holds"
				}
				return usageErrorf(c, "%s %s %s %s %s: sim does not write over its inputs; give another path", o.flag, o.path, what, in.flag, in.path)
			}
		}
	}
	if otlp := c.String("otlp"); has("otlp") && otlp != "" {
		if fi, err := os.Lstat(otlp); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return usageErrorf(c, "--otlp %s is a symbolic link: give the file itself (the file is written beside it and renamed into place, which would replace the link)", otlp)
		}
		if out := c.String("out"); has("out") && out != "" && out != "-" && under(otlp, out) {
			return usageErrorf(c, "--otlp %s is inside --out %s: the folder is replaced as a whole by each run; give a path outside it", otlp, out)
		}
	}
	return nil
}

// same reports whether a and b are the same existing file.
func same(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// within reports whether the existing file or directory in is out, or is
// inside out (symbolic links resolved).
func within(in, out string) bool {
	if _, err := os.Stat(in); err != nil {
		return false // nothing there to lose (an embedded scenario's name, RECORDED=MODEL)
	}
	return same(in, out) || under(in, out)
}

// under reports whether path p is out or inside it, by name (symbolic
// links of the existing part of each resolved); neither need exist.
func under(p, out string) bool {
	ri, err := realPath(p)
	if err != nil {
		return false
	}
	ro, err := realPath(out)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(ro, ri)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// realPath is p absolute, with the symbolic links of its longest existing
// prefix resolved (p itself need not exist).
func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest), nil
		}
		if dir == filepath.Dir(dir) {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}
