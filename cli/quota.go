package cli

import (
	"encoding/json"
	"fmt"

	"github.com/evalsched/lab/lab"
	"github.com/evalsched/lab/report"
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
		UsageText: "sim quota-check --in DIR [--max-share 0.05] [--json]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "in", Usage: "output directory of sim run or compare (reads summary.json); required"},
			&cli.Float64Flag{Name: "max-share", Usage: "largest share of a daily quota an evaluation workload may use", Value: 0.05},
			&cli.BoolFlag{Name: "json", Usage: "print the verdict as JSON on stdout instead of the table"},
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
			v := lab.CheckQuotaVerdict(o.Summary, max)
			if c.Bool("json") {
				enc := json.NewEncoder(c.App.Writer)
				enc.SetIndent("", "  ")
				if err := enc.Encode(v); err != nil {
					return err
				}
			} else if err := report.WriteQuotaTable(c.App.Writer, o.Summary, max); err != nil {
				return err
			}
			if v.Over > 0 {
				return &quotaGateError{over: v.Over}
			}
			return nil
		},
	}
}
