package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
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
			&cli.StringFlag{Name: "out", Usage: "directory for verdict.json (\"no verdict\" and why when the gate cannot judge), and --junit or --markdown files named inside it", Value: "out/gate"},
			&cli.BoolFlag{Name: "json", Usage: "print the verdict as JSON on stdout instead of the table"},
			&cli.BoolFlag{Name: "update", Usage: "rewrite the baseline file from this run and print each figure's old and new value (needs --reason)"},
			&cli.StringFlag{Name: "reason", Usage: "with --update only: why the baselines change, not blank (kept in the baseline file's history)"},
			&cli.StringFlag{Name: "junit", Usage: "also write the verdict as JUnit XML to `FILE` (a test case per checked figure; - for stdout)"},
			&cli.StringFlag{Name: "markdown", Usage: "also write the verdict as a Markdown table to `FILE` (for a pull-request comment; - for stdout)"},
			&cli.StringSliceFlag{Name: "set", Usage: "judge a proposed change: set this dotted scenario key on every scenario of the gate (repeat the flag), against the baselines of the scenarios as written"},
		},
		Action: gateAction,
	}
}

func gateAction(c *cli.Context) error {
	// A command line sim refuses (exit 2) touches nothing. Past it, a gate
	// that cannot judge — its file or baseline refused, a stale baseline,
	// a failed run — writes "no verdict" and why where the verdict goes:
	// what an earlier run wrote must not stand.
	sets, err := gateFlags(c)
	if err != nil {
		return err
	}
	outs, err := gateFiles(c)
	if err != nil {
		return err
	}
	g, failed := lab.LoadGate(c.Args().First())
	var points []lab.PointSpec
	if failed == nil {
		if points, err = setPoints(c, g, sets); err != nil {
			return err
		}
	}
	stage, err := results.StageDir(c.String("out"))
	if err != nil {
		if failed != nil {
			return failed
		}
		return err
	}
	defer stage.Abort() // after Commit, a no-op
	var v lab.GateVerdict
	if failed == nil {
		v, failed = judgeGate(c, g, points)
	}
	if failed != nil {
		if err := publishVerdict(c, stage, outs, lab.NoVerdict(c.Args().First(), failed)); err != nil {
			return fmt.Errorf("%w (and writing \"no verdict\" failed: %v)", failed, err)
		}
		return failed
	}
	if err := publishVerdict(c, stage, outs, v); err != nil {
		return err
	}
	if !v.Pass {
		return &gateFailed{v}
	}
	return nil
}

// verdictOut is a file the verdict is also written to (--junit, --markdown):
// its path, its place inside --out when it is there (written with the
// verdict and swapped in with it: the next run replaces it as sim's own),
// and how it is written.
type verdictOut struct {
	flag, path, inOut string
	write             func(io.Writer, lab.GateVerdict) error
}

// gateFiles checks --junit and --markdown before anything runs: each a
// place that can be written, not one of the gate's own files inside --out,
// not both the same file.
func gateFiles(c *cli.Context) ([]verdictOut, error) {
	out, err := filepath.Abs(c.String("out"))
	if err != nil {
		return nil, err
	}
	var files []verdictOut
	for _, f := range []verdictOut{{flag: "junit", write: lab.WriteJUnit}, {flag: "markdown", write: lab.WriteGateMarkdown}} {
		f.path = c.String(f.flag)
		if f.path == "" || f.path == "-" {
			files = append(files, f)
			continue
		}
		abs, err := filepath.Abs(f.path)
		if err != nil {
			return nil, err
		}
		for _, g := range files {
			if g.path != "" && g.path != "-" && sameFile(g.path, f.path) {
				return nil, usageErrorf(c, "--%s and --%s name the same file %s", g.flag, f.flag, f.path)
			}
		}
		if rel, err := filepath.Rel(out, abs); err == nil && filepath.IsLocal(rel) {
			if err := results.CheckOwnable(rel); err != nil {
				return nil, usageErrorf(c, "--%s %s: inside --out %s, %v: give another name", f.flag, f.path, c.String("out"), err)
			}
			f.inOut = rel
		} else if err := results.CheckOutFile(f.path); err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

func sameFile(a, b string) bool {
	x, err1 := filepath.Abs(a)
	y, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && x == y
}

// gateFlags checks the flags that need no file: --update with a reason
// that says something, --reason only with --update, --set without
// --update and each --set KEY=VALUE.
func gateFlags(c *cli.Context) ([]scenario.Param, error) {
	update, reason := c.Bool("update"), strings.TrimSpace(c.String("reason"))
	switch {
	case update && !c.IsSet("reason"):
		return nil, usageErrorf(c, "--update needs --reason \"why the baselines change\"")
	case update && reason == "":
		return nil, usageErrorf(c, "--reason is blank: say why the baselines change (it is kept in the baseline's history)")
	case !update && c.IsSet("reason"):
		return nil, usageErrorf(c, "--reason goes with --update (why the baselines are rewritten); without --update nothing is rewritten")
	case update && len(c.StringSlice("set")) > 0:
		return nil, usageErrorf(c, "--set judges a change against the baselines; it cannot --update them (edit the gate file instead)")
	}
	return parseSets(c)
}

// setPoints is the gate's points with each --set applied (a value the
// scenario refuses is a usage error).
func setPoints(c *cli.Context, g *lab.Gate, sets []scenario.Param) ([]lab.PointSpec, error) {
	if len(sets) == 0 {
		return g.Points, nil
	}
	points := make([]lab.PointSpec, len(g.Points))
	for i, p := range g.Points {
		var err error
		p.Settings = append(append([]scenario.Param(nil), p.Settings...), sets...)
		if p.Overlay, err = scenario.WithParams(p.Overlay, sets); err != nil {
			return nil, usageErrorf(c, "--set: %v", err)
		}
		if _, err := lab.BuildPoint(p, map[string]*scenario.Scenario{}); err != nil {
			return nil, usageErrorf(c, "--set: %v", err)
		}
		points[i] = p
	}
	return points, nil
}

// judgeGate checks the gate's baseline, runs its points, with --update
// rewrites the baseline, and judges the figures: an error is no verdict.
func judgeGate(c *cli.Context, g *lab.Gate, points []lab.PointSpec) (lab.GateVerdict, error) {
	var none lab.GateVerdict
	update, reason := c.Bool("update"), strings.TrimSpace(c.String("reason"))
	// The baseline is checked against what the gate runs before anything
	// runs: a stale one gets no verdict, nor one under which a check could
	// never fail.
	old, had, err := lab.ReadBaseline(g.BaselinePath())
	if err != nil {
		return none, err
	}
	if !update {
		if err := g.CheckPinned(old, had); err != nil {
			return none, err
		}
		if err := g.CheckLimits(old); err != nil {
			return none, err
		}
	}
	now := map[string][]lab.MetricAgg{}
	for i, p := range points {
		// Each scenario has its own seeds; its seeds run in parallel.
		err := lab.RunPoints(progressOf(c.App.ErrWriter, "gate "+p.Name), warnOf(c.App.ErrWriter), points, []int{i}, g.Spec.Scenarios[i].Seeds, nil, func(_ int, perSeed [][]lab.MetricValue) error {
			now[p.Name] = lab.Aggregate(perSeed)
			return nil
		})
		if err != nil {
			return none, err
		}
	}
	base := old
	if update {
		var scs []lab.BaselineScenario
		for i, p := range g.Points {
			scs = append(scs, g.NewBaselineScenario(p.Name, g.Spec.Scenarios[i].Seeds, now[p.Name]))
		}
		// Refused before it is written: a baseline under which a check
		// could never fail.
		if err := g.CheckLimits(lab.GateBaseline{Scenarios: scs}); err != nil {
			return none, err
		}
		upd := lab.BaselineUpdate{Reason: reason, Date: time.Now().UTC().Format("2006-01-02")}
		if err := lab.WriteBaseline(g.BaselinePath(), scs, upd); err != nil {
			return none, err
		}
		fmt.Fprintf(c.App.ErrWriter, "wrote %s\n", g.BaselinePath())
		w := c.App.Writer
		if c.Bool("json") {
			w = c.App.ErrWriter // stdout is the verdict's
		}
		if err := lab.WriteBaselineChanges(w, g.BaselinePath(), lab.BaselineChanges(old, scs)); err != nil {
			return none, err
		}
		b, ok, err := lab.ReadBaseline(g.BaselinePath())
		if err == nil {
			err = g.CheckPinned(b, ok)
		}
		if err != nil {
			return none, err
		}
		base = b
	}
	return g.Judge(base, now), nil
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

// publishVerdict writes the verdict (or no verdict) everywhere it goes:
// verdict.json and the files inside --out, swapped in together; the
// --junit and --markdown files outside it; stdout (the table, or the JSON
// with --json; with --update the rows that are not ok, the baseline's
// changes having been printed); and under GitHub Actions the step summary
// and annotations.
func publishVerdict(c *cli.Context, stage *results.StagedDir, files []verdictOut, v lab.GateVerdict) error {
	data, err := lab.WriteVerdictFile(stage.Dir, v)
	if err != nil {
		return err
	}
	for _, f := range files {
		if f.inOut == "" {
			continue
		}
		p, err := stage.Own(f.inOut)
		if err != nil {
			return err
		}
		if err := writeFileWith(p, func(w io.Writer) error { return f.write(w, v) }); err != nil {
			return err
		}
	}
	if err := stage.Commit(); err != nil {
		return err
	}
	for _, f := range files {
		if f.inOut == "" {
			if err := writeOutput(c, f.path, func(w io.Writer) error { return f.write(w, v) }); err != nil {
				return err
			}
		}
	}
	switch {
	case c.Bool("json"):
		if _, err := c.App.Writer.Write(data); err != nil {
			return err
		}
	case v.Outcome == lab.OutcomeNoVerdict: // the error says it
	case c.Bool("update"):
		shown := v
		shown.Rows = slices.DeleteFunc(slices.Clone(v.Rows), func(r lab.GateRow) bool { return r.Verdict == lab.VerdictOK })
		if len(shown.Rows) > 0 {
			err = lab.WriteGateTable(c.App.Writer, shown)
		} else {
			err = lab.WriteGateOutcome(c.App.Writer, v)
		}
		if err != nil {
			return err
		}
	default:
		if err := lab.WriteGateTable(c.App.Writer, v); err != nil {
			return err
		}
	}
	if v.Outcome != lab.OutcomeNoVerdict {
		fmt.Fprintf(c.App.ErrWriter, "wrote %s\n", filepath.Join(c.String("out"), "verdict.json"))
	}
	return writeStepSummary(c, v)
}
