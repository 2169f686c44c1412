// Command sim runs the evaluation-scheduling lab: see README.md and
// package cli.
package main

import (
	"os"

	"github.com/evalsched/lab/cli"
)

func main() { os.Exit(cli.Main(os.Args)) }
