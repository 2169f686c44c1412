// Command sim runs the evaluation-scheduling lab: see README.md.
package main

import (
	"fmt"
	"os"
)

func main() {
	app := newApp()
	if err := app.Run(os.Args); err != nil {
		fmt.Fprintln(app.ErrWriter, "sim:", err)
		os.Exit(1)
	}
}
