package cli

import (
	"fmt"
	"io"

	"github.com/evalsched/lab/sim/replaycheck"
	"github.com/urfave/cli/v2"
)

// replay-check takes one or more Inspect logs (checked by the command).
func init() { positional["replay-check"] = -1 }

// traceReplayCheckCommand is `sim trace replay-check`: an Inspect log
// replayed under its own settings, against what it recorded
// (sim/replaycheck, docs/studies/replay-check.md).
func traceReplayCheckCommand() *cli.Command {
	return &cli.Command{
		Name:      "replay-check",
		Usage:     "replay an Inspect log's samples under its concurrency settings, with latency fitted from its calls, and report the error against the log",
		UsageText: "sim trace replay-check LOG|DIR...",
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageErrorf(c, "missing argument: the Inspect logs (.eval or .json) to replay")
			}
			rep, err := replaycheck.Check(c.Args().Slice())
			if err != nil {
				return err
			}
			printReplayCheck(c.App.Writer, rep)
			return nil
		},
	}
}

func printReplayCheck(w io.Writer, rep *replaycheck.Report) {
	for _, p := range rep.Skipped {
		fmt.Fprintf(w, "skipped: %v\n", p)
	}
	s := rep.Settings
	fmt.Fprintf(w, "settings: max_samples %d, max_sandboxes %d, max_connections %d (0: unset) → %d containers, in-flight limit %d a model\n",
		s.MaxSamples, s.MaxSandboxes, s.MaxConnections, rep.Containers, rep.InflightLimit)
	for _, l := range rep.Latency {
		fmt.Fprintf(w, "latency %s: ttft %.3f s + output / %.1f tokens/s (least squares over %d calls' working time, R² %.2f)\n", l.Model, l.TTFT.Seconds(), l.DecodeRate, l.Calls, l.R2)
	}
	fmt.Fprintf(w, "%-60s %10s %10s %7s %10s %10s\n", "sample", "recorded_s", "sim_s", "APE", "rec_wait_s", "sim_wait_s")
	for _, r := range rep.Samples {
		fmt.Fprintf(w, "%-60s %10.2f %10.2f %6.1f%% %10.2f %10.2f\n", r.ID, r.Recorded, r.Simulated, 100*r.APE, r.RecordedWait, r.SimulatedWait)
	}
	fmt.Fprintf(w, "samples %d: MdAPE %.1f%%, MAPE %.1f%%, correlation %.3f; makespan recorded %.1f s, simulated %.1f s; wait before service recorded %.1f s, simulated %.1f s\n",
		len(rep.Samples), 100*rep.MdAPE, 100*rep.MAPE, rep.Correlation, rep.RecordedMakespan, rep.SimulatedMakespan, rep.RecordedWait, rep.SimulatedWait)
}
