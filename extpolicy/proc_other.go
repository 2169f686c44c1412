//go:build !unix

package extpolicy

import "os/exec"

// Without process groups, only the process itself is ended.
func inGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
