//go:build unix

package extpolicy

import (
	"errors"
	"os/exec"
	"syscall"
)

// inGroup makes the command's process the leader of a process group of its
// own, so that it and every child it forks can be ended together (a child
// holding the policy's pipes would otherwise keep the lab waiting, and
// outlive it).
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup ends the process group of cmd's process with SIGKILL: the
// process, if it still runs, and whatever it forked that is still in its
// group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); errors.Is(err, syscall.ESRCH) {
		cmd.Process.Kill() // not a group leader after all (cannot happen on Linux)
	}
}
