package extpolicy

import (
	"os/exec"
	"sync"
	"time"
)

// The processes of the policies not yet ended, for KillAll.
var live = struct {
	sync.Mutex
	procs map[*exec.Cmd]bool
}{procs: map[*exec.Cmd]bool{}}

func register(cmd *exec.Cmd) {
	live.Lock()
	live.procs[cmd] = true
	live.Unlock()
}

func unregister(cmd *exec.Cmd) {
	live.Lock()
	delete(live.procs, cmd)
	live.Unlock()
}

// KillAll ends the process group of every policy process still running:
// for the lab about to exit on a signal, so that no policy outlives it
// (one that ignores SIGTERM, or whose stdin closing it never reads).
func KillAll() {
	live.Lock()
	defer live.Unlock()
	for cmd := range live.procs {
		killGroup(cmd)
	}
}

// waitBounded waits for the process to exit, for at most d; then its group
// is killed. It reports whether the process had to be killed.
func waitBounded(cmd *exec.Cmd, d time.Duration) (error, bool) {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		killGroup(cmd) // what it forked and left behind
		unregister(cmd)
		return err, false
	case <-time.After(d):
		killGroup(cmd)
		err := <-done
		unregister(cmd)
		return err, true
	}
}
