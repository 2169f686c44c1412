// Package cli is the sim command: its subcommands, flags and exit codes.
// cmd/sim is its main; a team builds a sim of its own, with its policies
// registered (scenario.RegisterPolicy, scenario.RegisterConfigPolicy), by
// a main that imports its policies' package and calls Main (see
// examples/byo-policy).
package cli

import (
	"errors"
	"fmt"
)

// Main runs the sim command on args (args[0] the program's name) and
// returns its exit code.
func Main(args []string) int {
	app := newApp()
	if err := app.Run(args); err != nil {
		fmt.Fprintln(app.ErrWriter, "sim:", err)
		var qe *quotaGateError
		if errors.As(err, &qe) {
			return exitQuota
		}
		var gf *gateFailed
		if errors.As(err, &gf) {
			return exitRegression
		}
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprintln(app.ErrWriter, "usage:", ue.usage)
			return exitUsage
		}
		return exitError
	}
	return 0
}
