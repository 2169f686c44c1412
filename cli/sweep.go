package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/evalsched/lab/lab"
	"github.com/evalsched/lab/results"
	"github.com/urfave/cli/v2"
)

// shardFlag is --shard on sweep and compare.
var shardFlag = &cli.StringFlag{Name: "shard", Usage: "run only shard I of N (I/N, 0-based), into DIR/shard-I; default from JOB_COMPLETION_INDEX+SIM_SHARDS, SLURM_ARRAY_TASK_ID+SLURM_ARRAY_TASK_COUNT or AWS_BATCH_JOB_ARRAY_INDEX+SIM_SHARDS"}

// shardOf reads --shard, else the array-job environment.
func shardOf(c *cli.Context) (lab.Shard, error) {
	if c.IsSet("shard") {
		sh, err := lab.ParseShard(c.String("shard"))
		if err != nil {
			return sh, usageErrorf(c, "--shard: %v", err)
		}
		return sh, nil
	}
	sh, _, err := lab.ShardFromEnv(os.Getenv)
	return sh, err
}

func sweepCommand() *cli.Command {
	return &cli.Command{
		Name:      "sweep",
		Usage:     "run a sweep file's points (a grid or list of overlays) on its seeds, on all cores; resumable and shardable",
		UsageText: "sim sweep [--out DIR] [--shard I/N] [--json] [--markdown FILE] SWEEP.yaml",
		Flags: []cli.Flag{&cli.StringFlag{Name: "out", Usage: outHelp(sweepFiles, "; a shard writes "+andList(sweepShardFiles)+" in DIR/shard-I"), Value: "out/sweep"}, shardFlag,
			&cli.BoolFlag{Name: "json", Usage: "print summary.csv's rows as JSON on stdout"},
			&cli.StringFlag{Name: "markdown", Usage: "also write summary.csv as a Markdown table to `FILE` (for a pull-request comment; - for stdout)"}},
		Action: func(c *cli.Context) error {
			sh, err := shardOf(c)
			if err != nil {
				return err
			}
			return sweepRun(c, c.Args().First(), c.String("out"), sh)
		},
	}
}

func sweepRun(c *cli.Context, file, dir string, sh lab.Shard) error {
	// Every point's scenario is built when the file is read, before the
	// directory is touched, so a bad point (a misspelt item, an overlay the
	// scenario refuses) leaves nothing behind.
	sw, err := lab.LoadSweep(file)
	if err != nil {
		return err
	}
	if sh.N > 1 {
		dir = filepath.Join(dir, fmt.Sprintf("shard-%d", sh.I))
	}
	// The sweep runs in a staging directory of a fixed name beside --out,
	// kept if it stops (a rerun resumes there) and swapped in whole when
	// every point is done.
	stage, fresh, err := results.ResumableStage(dir)
	if err != nil {
		return err
	}
	defer stage.Abort() // keeps the points done; after Commit, a no-op
	todo, err := sw.Prepare(stage, fresh, dir, sh)
	if err != nil {
		if fresh {
			stage.Discard()
		}
		return err
	}
	owned := 0
	for i := range sw.Points {
		if sh.Owns(i) {
			owned++
		}
	}
	fmt.Fprintf(c.App.ErrWriter, "sweep %s: %d points x %d seeds (shard %s: %d points, %d already done)\n",
		file, len(sw.Points), len(sw.Seeds), sh, owned, owned-len(todo))
	err = lab.RunPoints(progressOf(c.App.ErrWriter, "sweep"), warnOf(c.App.ErrWriter), sw.Points, todo, sw.Seeds, nil, func(i int, perSeed [][]lab.MetricValue) error {
		return sw.WritePoint(stage.Dir, i, perSeed)
	})
	if err != nil {
		return err
	}
	if sh.N <= 1 {
		if err := sw.Assemble(stage.Dir); err != nil {
			return err
		}
	}
	if err := stage.Commit(); err != nil {
		return err
	}
	if sh.N > 1 {
		fmt.Fprintln(c.App.ErrWriter, "merge the shards with sim merge")
		wrote(c.App.ErrWriter, dir, sweepShardFiles)
		return nil
	}
	wrote(c.App.ErrWriter, dir, sweepFiles)
	return sweepOutputs(c, file, dir)
}

// sweepOutputs prints summary.csv as JSON (--json) and writes it as a
// Markdown table (--markdown).
func sweepOutputs(c *cli.Context, file, dir string) error {
	if !c.Bool("json") && c.String("markdown") == "" {
		return nil
	}
	rows, err := readCSVFile(filepath.Join(dir, "summary.csv"))
	if err != nil {
		return err
	}
	if c.Bool("json") {
		if err := printJSON(c.App.Writer, csvJSON(rows)); err != nil {
			return err
		}
	}
	return writeOutput(c, c.String("markdown"), func(w io.Writer) error {
		return csvMarkdown(w, "sim sweep `"+file+"`: mean over seeds and 95% interval per point", rows)
	})
}

func mergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "merge the shard directories of one sweep, or of one compare --seeds, into --out: the same files an unsharded run writes",
		UsageText: "sim merge [--out DIR] SHARD_DIR...",
		Flags:     []cli.Flag{&cli.StringFlag{Name: "out", Usage: "directory for what the unsharded command writes: a compare's " + andList(runOutputs) + ", a sweep's " + andList(sweepFiles) + " (created if missing)", Value: "out/sweep"}},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageErrorf(c, "missing argument: the shard directories")
			}
			dir := c.String("out")
			if lab.IsCompareShard(c.Args().First()) {
				if err := lab.MergeCompare(dir, c.Args().Slice()); err != nil {
					return err
				}
				wrote(c.App.ErrWriter, dir, runOutputs)
				return nil
			}
			if err := lab.MergeSweep(dir, c.Args().Slice()); err != nil {
				return err
			}
			wrote(c.App.ErrWriter, dir, sweepFiles)
			return nil
		},
	}
}
