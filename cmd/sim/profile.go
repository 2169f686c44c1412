package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/urfave/cli/v2"
)

// profileFlags are the global --cpuprofile and --memprofile flags: pprof
// files for `go tool pprof`, to see where a long run spends its time.
func profileFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "cpuprofile", Usage: "write a CPU profile of the command to this file (go tool pprof)"},
		&cli.StringFlag{Name: "memprofile", Usage: "write a heap profile (allocations) at the end of the command to this file"},
	}
}

// startProfile starts the CPU profile if asked; stopProfile ends it and
// writes the heap profile.
func startProfile(c *cli.Context) error {
	path := c.String("cpuprofile")
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	profileFile = f
	return nil
}

var profileFile *os.File // the CPU profile being written, if any

func stopProfile(c *cli.Context) error {
	if profileFile != nil {
		pprof.StopCPUProfile()
		if err := profileFile.Close(); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		profileFile = nil
	}
	path := c.String("memprofile")
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	runtime.GC()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("--memprofile: %w", err)
	}
	return f.Close()
}
