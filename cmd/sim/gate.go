package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/evalsched/lab/lab"
	"github.com/urfave/cli/v2"
)

// exitRegression is the exit code of a gate that found a regression (or a
// figure without a baseline).
const exitRegression = 3

// gateFailed is a gate's failure: main exits with exitRegression.
type gateFailed struct{ v lab.GateVerdict }

func (e *gateFailed) Error() string {
	return fmt.Sprintf("gate failed: %d regressions, %d figures without a baseline", e.v.Regressions, e.v.Missing)
}

func gateCommand() *cli.Command {
	return &cli.Command{
		Name:      "gate",
		Usage:     "run a gate file's scenarios on fixed seeds and check their figures against committed baselines (exit 3 on a regression)",
		UsageText: "sim gate [--out DIR] [--json] [--junit FILE] [--markdown FILE] [--update --reason TEXT] GATE.yaml",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "directory for verdict.json", Value: "out/gate"},
			&cli.BoolFlag{Name: "json", Usage: "print the verdict as JSON on stdout instead of the table"},
			&cli.BoolFlag{Name: "update", Usage: "rewrite the baseline file from this run (needs --reason)"},
			&cli.StringFlag{Name: "reason", Usage: "with --update: why the baselines change (kept in the baseline file's history)"},
			&cli.StringFlag{Name: "junit", Usage: "also write the verdict as JUnit XML to `FILE` (a test case per checked figure; - for stdout)"},
			&cli.StringFlag{Name: "markdown", Usage: "also write the verdict as a Markdown table to `FILE` (for a pull-request comment; - for stdout)"},
		},
		Action: gateAction,
	}
}

func gateAction(c *cli.Context) error {
	if c.Bool("update") && c.String("reason") == "" {
		return usageErrorf(c, "--update needs --reason \"why the baselines change\"")
	}
	g, err := lab.LoadGate(c.Args().First())
	if err != nil {
		return err
	}
	now := map[string][]lab.MetricAgg{}
	for i, p := range g.Points {
		// Each scenario has its own seeds; its seeds run in parallel.
		err := runPoints(c.App.ErrWriter, "gate "+p.Name, g.Points, []int{i}, g.Spec.Scenarios[i].Seeds, func(_ int, perSeed [][]lab.MetricValue) error {
			now[p.Name] = lab.Aggregate(perSeed)
			return nil
		})
		if err != nil {
			return err
		}
	}
	if c.Bool("update") {
		var scs []lab.BaselineScenario
		for i, p := range g.Points {
			scs = append(scs, g.NewBaselineScenario(p.Name, g.Spec.Scenarios[i].Seeds, now[p.Name]))
		}
		upd := lab.BaselineUpdate{Reason: c.String("reason"), Date: time.Now().UTC().Format("2006-01-02")}
		if err := lab.WriteBaseline(g.BaselinePath(), scs, upd); err != nil {
			return err
		}
		fmt.Fprintf(c.App.ErrWriter, "wrote %s\n", g.BaselinePath())
	}
	base, _, err := lab.ReadBaseline(g.BaselinePath())
	if err != nil {
		return err
	}
	v := g.Judge(base, now)
	if err := writeVerdict(c, v); err != nil {
		return err
	}
	if err := writeGateCI(c, v); err != nil {
		return err
	}
	if !v.Pass {
		return &gateFailed{v}
	}
	return nil
}

func writeVerdict(c *cli.Context, v lab.GateVerdict) error {
	dir := c.String("out")
	data, err := lab.WriteVerdictFile(dir, v)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		_, err = c.App.Writer.Write(data)
		return err
	}
	if err := lab.WriteGateTable(c.App.Writer, v); err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "wrote %s\n", filepath.Join(dir, "verdict.json"))
	return nil
}
