package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestGitHubWorkflowExample runs the run steps of the shipped GitHub
// Actions workflow (examples/github/sim-gate.yml) with bash in a copy of
// the repository's files, as the runner would after actions/checkout and
// actions/setup-go (the steps that use an action are skipped). A step that
// fails fails the test, so the example cannot rot.
func TestGitHubWorkflowExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs the gate in a copy of the repository")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git to list the repository's files")
	}
	data, err := os.ReadFile("../examples/github/sim-gate.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string `yaml:"uses"`
				Run  string `yaml:"run"`
				If   string `yaml:"if"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	if len(wf.Jobs) == 0 {
		t.Fatal("the workflow has no jobs")
	}
	root := copyRepository(t)
	ran := 0
	for name, job := range wf.Jobs {
		for i, step := range job.Steps {
			if step.Run == "" {
				if !strings.HasPrefix(step.Uses, "actions/") {
					t.Errorf("job %s step %d: uses %q, which the test cannot stand in for", name, i, step.Uses)
				}
				continue
			}
			cmd := exec.Command("bash", "-eo", "pipefail", "-c", step.Run)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "GITHUB_STEP_SUMMARY="+filepath.Join(t.TempDir(), "summary.md"), "CI=true")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("job %s step %d %q: %v\n%s", name, i, step.Run, err, out)
			}
			ran++
		}
	}
	if ran == 0 {
		t.Fatal("the workflow has no run steps")
	}
	for _, want := range []string{"gate-out/verdict.json", "gate-out/junit.xml"} {
		if _, err := os.Stat(filepath.Join(root, want)); err != nil {
			t.Errorf("the workflow's artifact is missing: %v", err)
		}
	}
}

// copyRepository copies the repository's tracked and untracked (not
// ignored) files as they are now into a temporary folder with nothing
// beside it.
func copyRepository(t *testing.T) string {
	t.Helper()
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	src := strings.TrimSpace(string(top))
	list, err := exec.Command("git", "-C", src, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "lab")
	for _, rel := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(src, rel))
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
