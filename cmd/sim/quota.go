package main

import (
	"fmt"

	"github.com/evalsched/lab/results"
	"github.com/urfave/cli/v2"
)

// quotaGateError is quota-check's verdict that an evaluation passed its
// share of a daily quota: main exits with exitQuota.
type quotaGateError struct{ over int }

func (e *quotaGateError) Error() string {
	return fmt.Sprintf("quota-check: %d evaluation line(s) above the allowed share of a daily quota: needs the quota owner's sign-off", e.over)
}

func quotaCheckCommand() *cli.Command {
	return &cli.Command{
		Name:      "quota-check",
		Usage:     "print a run's quota telemetry (N used of daily quota M) and fail (exit 4) when an evaluation's N/M passes --max-share",
		UsageText: "sim quota-check --in DIR [--max-share 0.05]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "in", Usage: "output directory of sim run or compare (reads summary.json)", Required: true},
			&cli.Float64Flag{Name: "max-share", Usage: "largest share of a daily quota an evaluation workload may use", Value: 0.05},
		},
		Action: func(c *cli.Context) error {
			max := c.Float64("max-share")
			if !(max > 0 && max <= 1) {
				return usageErrorf(c, "--max-share: must be in (0, 1], got %g", max)
			}
			o, err := results.LoadOutputs(c.String("in"))
			if err != nil {
				return err
			}
			over, err := results.CheckQuota(c.App.Writer, o.Summary, max)
			if err != nil {
				return err
			}
			if over > 0 {
				return &quotaGateError{over: over}
			}
			return nil
		},
	}
}
