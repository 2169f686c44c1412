package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalsched/lab/lab"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/urfave/cli/v2"
)

// gateFailed is a gate's failure: main exits with exitRegression.
type gateFailed struct{ v lab.GateVerdict }

func (e *gateFailed) Error() string {
	return fmt.Sprintf("gate failed: %d regressions, %d figures missing (no baseline, or not in the run)", e.v.Regressions, e.v.Missing)
}

func gateCommand() *cli.Command {
	return &cli.Command{
		Name:      "gate",
		Usage:     "run a gate file's scenarios on fixed seeds and check their figures against committed baselines (exit 3 on a regression, 5 on a baseline that does not pin what the gate runs)",
		UsageText: "sim gate [--out DIR] [--json] [--junit FILE] [--markdown FILE] [--set KEY=VALUE ...] [--update --reason TEXT] GATE.yaml",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "directory for verdict.json", Value: "out/gate"},
			&cli.BoolFlag{Name: "json", Usage: "print the verdict as JSON on stdout instead of the table"},
			&cli.BoolFlag{Name: "update", Usage: "rewrite the baseline file from this run (needs --reason)"},
			&cli.StringFlag{Name: "reason", Usage: "with --update: why the baselines change (kept in the baseline file's history)"},
			&cli.StringFlag{Name: "junit", Usage: "also write the verdict as JUnit XML to `FILE` (a test case per checked figure; - for stdout)"},
			&cli.StringFlag{Name: "markdown", Usage: "also write the verdict as a Markdown table to `FILE` (for a pull-request comment; - for stdout)"},
			&cli.StringSliceFlag{Name: "set", Usage: "judge a proposed change: set this dotted scenario key on every scenario of the gate (repeat the flag), against the baselines of the scenarios as written"},
		},
		Action: gateAction,
	}
}

func gateAction(c *cli.Context) error {
	if c.Bool("update") && c.String("reason") == "" {
		return usageErrorf(c, "--update needs --reason \"why the baselines change\"")
	}
	if c.Bool("update") && len(c.StringSlice("set")) > 0 {
		return usageErrorf(c, "--set judges a change against the baselines; it cannot --update them (edit the gate file instead)")
	}
	for _, f := range []string{c.String("junit"), c.String("markdown")} {
		if f != "" && f != "-" {
			if err := results.CheckOutFile(f); err != nil { // before anything runs
				return err
			}
		}
	}
	sets, err := parseSets(c)
	if err != nil {
		return err
	}
	g, err := lab.LoadGate(c.Args().First())
	if err != nil {
		return err
	}
	// The baseline is checked against what the gate runs before anything
	// runs: a stale one gets no verdict.
	var base lab.GateBaseline
	if !c.Bool("update") {
		b, ok, err := lab.ReadBaseline(g.BaselinePath())
		if err != nil {
			return err
		}
		if err := g.CheckPinned(b, ok); err != nil {
			return err
		}
		base = b
	}
	points := g.Points
	if len(sets) > 0 {
		points = make([]lab.PointSpec, len(g.Points))
		for i, p := range g.Points {
			p.Settings = append(append([]scenario.Param(nil), p.Settings...), sets...)
			if p.Overlay, err = scenario.WithParams(p.Overlay, sets); err != nil {
				return usageErrorf(c, "--set: %v", err)
			}
			if _, err := lab.BuildPoint(p, map[string]*scenario.Scenario{}); err != nil {
				return usageErrorf(c, "--set: %v", err)
			}
			points[i] = p
		}
	}
	stage, err := results.StageDir(c.String("out"))
	if err != nil {
		return err
	}
	defer stage.Abort() // after Commit, a no-op
	now := map[string][]lab.MetricAgg{}
	for i, p := range points {
		// Each scenario has its own seeds; its seeds run in parallel.
		err := lab.RunPoints(progressOf(c.App.ErrWriter, "gate "+p.Name), warnOf(c.App.ErrWriter), points, []int{i}, g.Spec.Scenarios[i].Seeds, func(_ int, perSeed [][]lab.MetricValue) error {
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
		b, ok, err := lab.ReadBaseline(g.BaselinePath())
		if err == nil {
			err = g.CheckPinned(b, ok)
		}
		if err != nil {
			return err
		}
		base = b
	}
	v := g.Judge(base, now)
	if err := writeVerdict(c, stage, v); err != nil {
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

// parseSets reads --set KEY=VALUE flags as parameters of every point.
func parseSets(c *cli.Context) ([]scenario.Param, error) {
	var out []scenario.Param
	for _, kv := range c.StringSlice("set") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return nil, usageErrorf(c, "--set %q: want KEY=VALUE (a dotted scenario key, e.g. policies.scheduler.max_limit=10)", kv)
		}
		if _, err := scenario.SplitKey(k); err != nil {
			return nil, usageErrorf(c, "--set %s: %v", k, err)
		}
		out = append(out, scenario.Param{Key: k, Value: scenario.Scalar(v), Where: "--set " + k})
	}
	return out, nil
}

func writeVerdict(c *cli.Context, stage *results.StagedDir, v lab.GateVerdict) error {
	data, err := lab.WriteVerdictFile(stage.Dir, v)
	if err != nil {
		return err
	}
	if err := stage.Commit(); err != nil {
		return err
	}
	if c.Bool("json") {
		_, err = c.App.Writer.Write(data)
		return err
	}
	if err := lab.WriteGateTable(c.App.Writer, v); err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "wrote %s\n", filepath.Join(c.String("out"), "verdict.json"))
	return nil
}
