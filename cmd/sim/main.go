// Command sim runs the evaluation-scheduling lab: see README.md.
package main

import (
	"errors"
	"fmt"
	"os"
)

func main() {
	app := newApp()
	if err := app.Run(os.Args); err != nil {
		fmt.Fprintln(app.ErrWriter, "sim:", err)
		var qe *quotaGateError
		if errors.As(err, &qe) {
			os.Exit(exitQuota)
		}
		var gf *gateFailed
		if errors.As(err, &gf) {
			os.Exit(exitRegression)
		}
		var ie *infeasibleError
		if errors.As(err, &ie) {
			os.Exit(exitInfeasible)
		}
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprintln(app.ErrWriter, "usage:", ue.usage)
			os.Exit(exitUsage)
		}
		os.Exit(exitError)
	}
}
