package cli

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/urfave/cli/v2"
)

// profiling is the global --cpuprofile and --memprofile flags (pprof files
// for `go tool pprof`, to see where a long run spends its time) and the
// hooks that start the CPU profile before the command and, after it, stop
// it and write the heap profile.
func profiling() (flags []cli.Flag, before cli.BeforeFunc, after cli.AfterFunc) {
	var cpu *os.File
	flags = []cli.Flag{
		&cli.StringFlag{Name: "cpuprofile", Usage: "write a CPU profile of the command to this file (go tool pprof)"},
		&cli.StringFlag{Name: "memprofile", Usage: "write a heap profile (allocations) at the end of the command to this file"},
	}
	before = func(c *cli.Context) error {
		path := c.String("cpuprofile")
		if path == "" {
			return nil
		}
		f, err := os.Create(path)
		if err == nil {
			if err = pprof.StartCPUProfile(f); err != nil {
				f.Close()
			}
		}
		if err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		cpu = f
		return nil
	}
	after = func(c *cli.Context) error {
		if cpu != nil {
			pprof.StopCPUProfile()
			err := cpu.Close()
			cpu = nil
			if err != nil {
				return fmt.Errorf("--cpuprofile: %w", err)
			}
		}
		path := c.String("memprofile")
		if path == "" {
			return nil
		}
		runtime.GC()
		f, err := os.Create(path)
		if err == nil {
			err = pprof.Lookup("allocs").WriteTo(f, 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return fmt.Errorf("--memprofile: %w", err)
		}
		return nil
	}
	return flags, before, after
}
