package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/workloads"
	"github.com/evalsched/lab/workloads/behaviourfit"
	"github.com/urfave/cli/v2"
)

// traceFitCommand is `sim trace fit`: a behaviour class fitted to a job
// trace's plan jobs, or an embedded preset (docs/reference/trace-import.md).
func traceFitCommand() *cli.Command {
	return &cli.Command{
		Name:      "fit",
		Usage:     "fit the behaviour class a scenario needs to a job trace's plan jobs (an imported trace, say), or write an embedded preset",
		UsageText: "sim trace fit [--scenario FILE] [--figures DIR] --out behaviour.yaml TRACEFILE | sim trace fit --preset NAME --out behaviour.yaml",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "scenario", Usage: "scenario YAML file, or the name of an embedded one: the catalogue the trace's models are checked against", Value: scenario.DefaultScenario},
			&cli.StringFlag{Name: "out", Usage: "behaviour YAML to write (a behaviour class's keys); required"},
			&cli.StringFlag{Name: "figures", Usage: "directory to write a PNG per quantity into: the data's CDF against the fitted CDF"},
			&cli.StringFlag{Name: "preset", Usage: "write this embedded preset instead of fitting: " + strings.Join(behaviourfit.Presets(), ", ")},
		},
		Action: func(c *cli.Context) error {
			if !c.IsSet("out") {
				return usageErrorf(c, "missing --out: the behaviour YAML to write")
			}
			if c.IsSet("preset") {
				if c.NArg() > 0 {
					return usageErrorf(c, "--preset takes no trace file")
				}
				b, err := behaviourfit.Preset(c.String("preset"))
				if err != nil {
					return usageErrorf(c, "--preset: %v", err)
				}
				return results.WriteAtomic(c.String("out"), func(w io.Writer) error { _, err := w.Write(b); return err })
			}
			if c.NArg() != 1 {
				return usageErrorf(c, "want one trace file, got %d arguments", c.NArg())
			}
			return traceFit(c.App.Writer, c.String("scenario"), c.Args().First(), c.String("out"), c.String("figures"))
		},
	}
}

func traceFit(stdout io.Writer, scenarioRef, path, out, figures string) error {
	tr, err := openTraceFor(scenarioRef, path)
	if err != nil {
		return err
	}
	defer tr.Close()
	format, err := workloads.TraceFormat(path, "")
	if err != nil {
		return err
	}
	sc := tr.sc
	sample, classJobs, err := behaviourfit.FromTrace(tr.in, path, format, sc.Catalogue(), tr.classes)
	if err != nil {
		return err
	}
	res := sample.Fit()
	yml := res.YAML(filepath.Base(path))
	if err := checkBehaviourYAML(yml); err != nil {
		return fmt.Errorf("the fitted behaviour does not validate (a bug): %v", err)
	}
	// The figures are drawn, and their folder made, before --out is
	// written: a --figures that cannot be written fails the command with
	// nothing written.
	var figs []behaviourfit.Figure
	if figures != "" {
		if figs, err = res.Figures(); err != nil {
			return err
		}
		if err := os.MkdirAll(figures, 0o755); err != nil {
			return fmt.Errorf("--figures: %w", err)
		}
		for _, fig := range figs {
			if err := results.CheckOutFile(filepath.Join(figures, fig.Name)); err != nil {
				return fmt.Errorf("--figures: %w", err)
			}
		}
	}
	if err := results.WriteAtomic(out, func(w io.Writer) error { _, err := w.Write(yml); return err }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "fitted a behaviour to %d plan jobs (%d turns, %d calls) of %s; wrote %s\n", sample.Jobs, len(sample.Fanout), sample.Calls, path, out)
	if classJobs > 0 {
		fmt.Fprintf(stdout, "left out %d class jobs: their calls are drawn from a class, not recorded\n", classJobs)
	}
	if figures == "" {
		return nil
	}
	for _, fig := range figs {
		p := filepath.Join(figures, fig.Name)
		if err := results.WriteAtomic(p, func(w io.Writer) error { _, err := io.Copy(w, bytes.NewReader(fig.PNG)); return err }); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "wrote %d CDF figures (data vs fit) to %s\n", len(figs), figures)
	return nil
}

// checkBehaviourYAML loads the YAML as a scenario would load a behaviour
// class, and validates it.
func checkBehaviourYAML(b []byte) error {
	return behaviourfit.Check(b)
}
