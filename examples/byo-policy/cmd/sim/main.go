// Command sim is the lab's sim command with this module's policies
// registered: the lab's CLI, unchanged, plus largest-backlog.
package main

import (
	"os"

	_ "example.com/byo-policy/largest" // registers largest-backlog
	"github.com/evalsched/lab/cli"
)

func main() { os.Exit(cli.Main(os.Args)) }
