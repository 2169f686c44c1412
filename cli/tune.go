package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/evalsched/lab/lab"
	"github.com/evalsched/lab/report"
	"github.com/evalsched/lab/results"
	"github.com/urfave/cli/v2"
)

func tuneCommand() *cli.Command {
	return &cli.Command{
		Name:      "tune",
		Usage:     "search scheduler settings for an objective under constraints on several seeds; print the best as a YAML overlay",
		UsageText: "sim tune [--out DIR] [--json] TUNE.yaml",
		Flags: []cli.Flag{&cli.StringFlag{Name: "out", Usage: outHelp(tuneFiles, " (front.png when the tune file has a trade_off)"), Value: "out/tune"},
			&cli.BoolFlag{Name: "json", Usage: "print the best setting, its figures and the overlay as JSON instead of the YAML overlay"}},
		Action: tuneAction,
	}
}

func tuneAction(c *cli.Context) error {
	file := c.Args().First()
	f, base, seeds, err := lab.LoadTune(file)
	if err != nil {
		return err
	}
	// The tune's directory is staged (and locked) before anything runs,
	// and swapped in whole at the end: a new tune.csv never sits beside an
	// earlier front.png, and a failed tune leaves the previous outputs (a
	// tune with no feasible setting is not failed: its tune.csv is swapped
	// in, exit 7).
	dir := c.String("out")
	stage, err := results.StageDir(dir)
	if err != nil {
		return err
	}
	defer stage.Abort() // after Commit, a no-op
	n := 0
	// The baseline's runs, shared by every evaluation whose baseline runs
	// the same scenario (a tune of the scheduler's settings: one a seed).
	baselines := lab.NewBaselines()
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
			err := lab.RunPoints(progressOf(c.App.ErrWriter, fmt.Sprintf("tune %d", n)), warnOf(c.App.ErrWriter), points, idx, seeds, baselines, func(i int, perSeed [][]lab.MetricValue) error {
				out[i] = map[lab.MetricKey]float64{}
				for _, a := range lab.Aggregate(perSeed) {
					out[i][a.MetricKey] = a.Mean
				}
				return nil
			})
			return out, err
		}}
	best, err := t.Run()
	if errors.Is(err, lab.ErrNoFeasible) {
		// The evaluations are the answer: keep them for a look at the misses.
		if werr := f.WriteTuneCSV(filepath.Join(stage.Dir, "tune.csv"), t.Evaluations()); werr != nil {
			return werr
		}
		if werr := stage.Commit(); werr != nil {
			return werr
		}
		wrote(c.App.ErrWriter, dir, tuneFiles[:1])
		return &infeasibleError{err}
	}
	if err != nil {
		return err
	}
	if err := f.WriteTuneCSV(filepath.Join(stage.Dir, "tune.csv"), t.Evaluations()); err != nil {
		return err
	}
	var front []lab.TuneEval
	if f.TradeOff != nil {
		front = lab.ParetoFront(t.Evaluations(), f.Objective, *f.TradeOff)
		if err := report.PlotFront(filepath.Join(stage.Dir, "front.png"), frontPlot(t.Evaluations(), front, best, f.Objective, *f.TradeOff)); err != nil {
			return err
		}
	}
	overlay, err := f.OverlayYAML(best.X)
	if err != nil {
		return err
	}
	if err := stage.Commit(); err != nil {
		return err
	}
	if f.TradeOff != nil {
		fmt.Fprintf(c.App.ErrWriter, "Pareto front: %d settings\n", len(front))
	}
	files := tuneFiles[:1]
	if f.TradeOff != nil {
		files = tuneFiles
	}
	if c.Bool("json") {
		setting := map[string]float64{}
		for j, p := range f.Params {
			setting[p.Key] = best.X[j]
		}
		figures := map[string]float64{}
		for k, v := range best.Figures {
			figures[k.Lane+" "+k.Metric] = v
		}
		err := printJSON(c.App.Writer, map[string]any{"file": file, "settings_evaluated": len(t.Evaluations()), "seeds": len(seeds),
			"objective": map[string]any{"lane": f.Objective.Key().Lane, "metric": f.Objective.Metric, "goal": f.Objective.Goal, "value": best.Figures[f.Objective.Key()]},
			"best":      setting, "figures": figures, "overlay": overlay})
		if err == nil {
			wrote(c.App.ErrWriter, dir, files)
		}
		return err
	}
	fmt.Fprintf(c.App.Writer, "# sim tune %s: %d settings evaluated on %d seeds; best %s %s = %.4g, meeting every constraint\n",
		file, len(t.Evaluations()), len(seeds), f.Objective.Key().Lane, f.Objective.Metric, best.Figures[f.Objective.Key()])
	fmt.Fprint(c.App.Writer, overlay)
	wrote(c.App.ErrWriter, dir, files)
	return nil
}

// frontPlot is the tune's evaluations as report.PlotFront draws them: each
// at (objective, trade-off), with the front and the recommendation.
func frontPlot(evals, front []lab.TuneEval, best lab.TuneEval, obj, trade lab.TuneGoal) report.FrontPlot {
	xy := func(e lab.TuneEval) report.XY { return report.XY{X: e.Figures[obj.Key()], Y: e.Figures[trade.Key()]} }
	fp := report.FrontPlot{
		XLabel: obj.Key().Lane + " " + obj.Metric + " (" + string(obj.Goal) + ")",
		YLabel: trade.Key().Lane + " " + trade.Metric + " (" + string(trade.Goal) + ")",
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
