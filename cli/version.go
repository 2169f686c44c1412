package cli

import (
	"os/exec"
	"runtime/debug"
	"strings"
)

// revision is the VCS revision sim was built from (12 hex digits, "+dirty"
// with uncommitted changes): from the build info when the build stamped it
// (go build, go install), else from git in the working directory when that
// is the repository (go run stamps none), else "".
func revision() string {
	if rev := stampedRevision(); rev != "" {
		return rev
	}
	return gitRevision()
}

// stampedRevision is the revision the build stamped, or "".
func stampedRevision() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value[:min(12, len(s.Value))]
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if dirty {
				rev += "+dirty"
			}
			return rev
		}
	}
	return ""
}

// gitRevision asks git for HEAD of the repository around the working
// directory, if git is there and the repository is this module's.
func gitRevision() string {
	if _, err := exec.LookPath("git"); err != nil {
		return ""
	}
	mod, err := exec.Command("go", "list", "-m").Output()
	if err != nil || strings.TrimSpace(string(mod)) != "github.com/evalsched/lab" {
		return ""
	}
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return ""
	}
	rev := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		rev += "+dirty"
	}
	return rev
}
