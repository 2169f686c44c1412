package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/evalsched/lab/lab"
	"github.com/evalsched/lab/report"
	"github.com/evalsched/lab/scenario"
	"github.com/urfave/cli/v2"
)

func tuneCommand() *cli.Command {
	return &cli.Command{
		Name:      "tune",
		Usage:     "search scheduler settings for an objective under constraints on several seeds; print the best as a YAML overlay",
		UsageText: "sim tune [--out DIR] TUNE.yaml",
		Flags:     []cli.Flag{&cli.StringFlag{Name: "out", Usage: "directory for tune.csv and front.png", Value: "out/tune"}},
		Action:    tuneAction,
	}
}

func tuneAction(c *cli.Context) error {
	file := c.Args().First()
	f, base, seeds, err := lab.LoadTune(file)
	if err != nil {
		return err
	}
	// The first setting the search runs (every parameter at its minimum) is
	// built before the directory is made: a misspelt list item or a value
	// the scenario refuses is reported with nothing written.
	lows := make([]float64, len(f.Params))
	for j, p := range f.Params {
		lows[j] = p.Min
	}
	first, err := f.Point(base, "t000", lows)
	if err == nil {
		_, err = pointScenario(first, map[string]*scenario.Scenario{})
	}
	if err != nil {
		return err
	}
	dir := c.String("out")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	n := 0
	t := &lab.Tuner{Params: f.Params, Objective: f.Objective, Constraints: f.Constraints, Budget: f.Budget,
		Eval: func(xs [][]float64) ([]map[lab.MetricKey]float64, error) {
			points := make([]lab.PointSpec, len(xs))
			idx := make([]int, len(xs))
			for i, x := range xs {
				p, err := f.Point(base, fmt.Sprintf("t%03d", n+i), x)
				if err != nil {
					return nil, err
				}
				points[i], idx[i] = p, i
			}
			n += len(xs)
			out := make([]map[lab.MetricKey]float64, len(xs))
			err := runPoints(c.App.ErrWriter, fmt.Sprintf("tune %d", n), points, idx, seeds, func(i int, perSeed [][]lab.MetricValue) error {
				out[i] = map[lab.MetricKey]float64{}
				for _, a := range lab.Aggregate(perSeed) {
					out[i][a.MetricKey] = a.Mean
				}
				return nil
			})
			return out, err
		}}
	best, err := t.Run()
	// tune.csv is written either way: with no feasible setting it shows how
	// close each came.
	if werr := f.WriteTuneCSV(filepath.Join(dir, "tune.csv"), t.Evaluations()); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		return err
	}
	if f.TradeOff != nil {
		front := lab.ParetoFront(t.Evaluations(), f.Objective, *f.TradeOff)
		if err := report.PlotFront(filepath.Join(dir, "front.png"), frontPlot(t.Evaluations(), front, best, f.Objective, *f.TradeOff)); err != nil {
			return err
		}
		fmt.Fprintf(c.App.ErrWriter, "Pareto front: %d settings; wrote %s\n", len(front), filepath.Join(dir, "front.png"))
	}
	overlay, err := f.OverlayYAML(best.X)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "# sim tune %s: %d settings evaluated on %d seeds; best %s %s = %.4g, meeting every constraint\n",
		file, len(t.Evaluations()), len(seeds), f.Objective.Key().Lane, f.Objective.Metric, best.Figures[f.Objective.Key()])
	fmt.Fprint(c.App.Writer, overlay)
	fmt.Fprintf(c.App.ErrWriter, "wrote %s\n", filepath.Join(dir, "tune.csv"))
	return nil
}

// frontPlot is the tune's evaluations as report.PlotFront draws them: each
// at (objective, trade-off), with the front and the recommendation.
func frontPlot(evals, front []lab.TuneEval, best lab.TuneEval, obj, trade lab.TuneGoal) report.FrontPlot {
	xy := func(e lab.TuneEval) report.XY { return report.XY{X: e.Figures[obj.Key()], Y: e.Figures[trade.Key()]} }
	fp := report.FrontPlot{
		XLabel: obj.Key().Lane + " " + obj.Metric + " (" + obj.Goal + ")",
		YLabel: trade.Key().Lane + " " + trade.Metric + " (" + trade.Goal + ")",
		Best:   xy(best),
	}
	for _, e := range evals {
		if e.Feasible {
			fp.Feasible = append(fp.Feasible, xy(e))
		} else {
			fp.Infeasible = append(fp.Infeasible, xy(e))
		}
	}
	for _, e := range front {
		fp.Front = append(fp.Front, xy(e))
	}
	return fp
}
