package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"

	"github.com/evalsched/lab/report"
	"github.com/evalsched/lab/results"
	"github.com/urfave/cli/v2"
)

// reportCommand is `sim report --in DIR`: figures, report.html and
// report.md for an output directory written by sim run or sim compare.
func reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "write report.html (self-contained), report.md and figures/ (PNG and SVG) for an output directory of sim run or sim compare",
		UsageText: "sim report [--in DIR]",
		Flags: []cli.Flag{&cli.StringFlag{Name: "in", Usage: "output directory holding summary.json, series.csv and batches.csv; the report is written into it",
			Value: "out"}},
		Action: func(c *cli.Context) error {
			return writeReport(c.App.ErrWriter, c.String("in"))
		},
	}
}

// writeReport writes DIR/report.html, DIR/report.md and DIR/figures/ from the
// outputs in DIR, and says so on stderr.
func writeReport(stderr io.Writer, dir string) error {
	if err := report.WriteReport(dir, toolVersion()); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	fmt.Fprintf(stderr, "wrote %s, %s and %s\n", filepath.Join(dir, "report.html"), filepath.Join(dir, "report.md"),
		filepath.Join(dir, "figures")+string(filepath.Separator))
	return nil
}

// toolVersion describes this binary: module version, VCS revision when it
// can be known, and the Go version.
func toolVersion() string {
	goVersion := "unknown Go"
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
	}
	return "sim " + version() + ", " + goVersion
}

// invocation records the flags of run or compare that decide the results,
// for the report's reproduce line.
func (o options) invocation(command string) *results.Invocation {
	inv := &results.Invocation{Command: command, Scenario: o.scenario, Trace: o.trace, SkipInvalid: o.skipInvalid, Variants: o.variants, Policies: o.policies}
	if command == "run" {
		inv.Policy = o.policy
	}
	if o.seeds > 1 {
		inv.Seeds = o.seeds
	}
	return inv
}
