package cli

import (
	"fmt"
	"strings"

	"github.com/evalsched/lab/lab"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/sim"
	"github.com/urfave/cli/v2"
)

// studyCommand writes docs/studies/baseline.md: the old system's measured
// state and the multipliers beside the source's table (lab.BaselineStudy).
func studyCommand(scenarioFlag, seedFlag cli.Flag) *cli.Command {
	return &cli.Command{
		Name:      "study",
		Usage:     "write the baseline study: the old system's measured state and the multipliers over seeds beside the source's table",
		UsageText: "sim study [--scenario NAME] [--seed N] [--seeds K] [--out FILE]",
		Flags: []cli.Flag{scenarioFlag, seedFlag,
			&cli.IntFlag{Name: "seeds", Usage: "seeds N .. N+K-1", Value: 10},
			&cli.StringFlag{Name: "out", Usage: "the study's Markdown file", Value: "docs/studies/baseline.md"}},
		Action: func(c *cli.Context) error {
			name, first, k := c.String("scenario"), c.Uint64("seed"), c.Int("seeds")
			if name == "" {
				name = "default"
			}
			if k < 2 || k > 1000 {
				return cli.Exit(fmt.Sprintf("sim study: --seeds %d: want 2 .. 1000", k), 2)
			}
			text, err := baselineStudy(name, first, k)
			if err != nil {
				return err
			}
			if err := results.WriteFileAtomic(c.String("out"), []byte(text)); err != nil {
				return err
			}
			fmt.Fprintf(c.App.ErrWriter, "wrote %s\n", c.String("out"))
			return nil
		},
	}
}

// baselineStudy runs fixed-lane and the scheduler on seeds first .. first+k-1
// of the scenario and renders the study.
func baselineStudy(name string, first uint64, k int) (string, error) {
	sc, err := scenario.LoadScenario(name)
	if err != nil {
		return "", err
	}
	var specs []sim.RunSpec
	for i := range k {
		for _, pol := range []string{"fixed-lane", "scheduler"} {
			specs = append(specs, sim.RunSpec{Policy: pol, Seed: first + uint64(i), Rows: results.Discard})
		}
	}
	runs, err := sim.ExecuteAll(sc, specs, nil)
	if err != nil {
		return "", err
	}
	bySeed := make([][]results.Run, k)
	for i := range k {
		bySeed[i] = runs[2*i : 2*i+2]
	}
	command := strings.Join([]string{"sim study --scenario", name, fmt.Sprintf("--seed %d --seeds %d", first, k)}, " ")
	return lab.BaselineStudy(sc, command, first, bySeed), nil
}
