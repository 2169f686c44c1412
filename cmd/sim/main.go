// Command sim runs the evaluation-scheduling lab: see README.md.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/evalsched/lab/results"
)

func main() {
	app := newApp()
	interrupts(app.ErrWriter)
	err := app.Run(os.Args)
	if err == nil {
		return
	}
	fmt.Fprintln(app.ErrWriter, "sim:", err)
	code := exitCode(err)
	if code == exitUsage {
		var ue *usageError
		if asUsage(err, &ue) {
			fmt.Fprintln(app.ErrWriter, "usage:", ue.usage)
		}
	}
	os.Exit(code)
}

// interrupts handles SIGINT and SIGTERM alike (a scheduler's stop, a
// terminal's ^C): every output directory being staged is removed, none
// half-swapped (results.AbortAll waits for a swap under way), and the
// process exits 128 + the signal's number, as a shell reports it.
func interrupts(stderr interface{ Write([]byte) (int, error) }) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sigs
		results.AbortAll()
		fmt.Fprintf(stderr, "sim: %v: stopped; no output directory was changed by this command's unfinished work\n", s)
		n := 2
		if s == syscall.SIGTERM {
			n = 15
		}
		os.Exit(exitSignal + n)
	}()
}
