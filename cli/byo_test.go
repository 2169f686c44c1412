package cli

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBringYourOwnGoPolicy builds examples/byo-policy, a module of its
// own that registers largest-backlog with the lab, into a sim binary (a
// copy of the module whose replace names this lab's root), and runs its
// policy by name from a scenario whose policies.largest-backlog block is
// read strictly.
func TestBringYourOwnGoPolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(t.TempDir(), "byo-policy")
	src := filepath.Join(root, "examples", "byo-policy")
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(mod, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == "go.mod" {
			data = regexp.MustCompile(`(?m)^replace github.com/evalsched/lab => .*$`).
				ReplaceAll(data, []byte("replace github.com/evalsched/lab => "+root))
		}
		return os.WriteFile(filepath.Join(mod, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "sim")
	build := exec.Command("go", "build", "-o", bin, "./cmd/sim")
	build.Dir = mod
	// As the README builds it: go.mod and go.sum must be tidy, so that the
	// build reads them only (-mod=readonly) and leaves the checkout as it
	// was; a lab that adds a dependency makes this fail until the example
	// is tidied (GOWORK=off go mod tidy in examples/byo-policy).
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		want, _ := os.ReadFile(filepath.Join(src, f))
		got, _ := os.ReadFile(filepath.Join(mod, f))
		if f == "go.mod" {
			got = regexp.MustCompile(`(?m)^replace github.com/evalsched/lab => .*$`).ReplaceAll(got, []byte("replace github.com/evalsched/lab => ../.."))
		}
		if string(want) != string(got) {
			t.Errorf("the build rewrote examples/byo-policy/%s", f)
		}
	}
	run := func(scenario string, args ...string) (string, error) {
		cmd := exec.Command(bin, append([]string{"run", "--scenario", scenario}, args...)...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out := filepath.Join(t.TempDir(), "out")
	if msg, err := run(filepath.Join(mod, "scenario.yaml"), "--policy", "largest-backlog", "--out", out); err != nil {
		t.Fatalf("run: %v\n%s", err, msg)
	}
	var s struct {
		Runs []struct {
			Policy        string `json:"policy"`
			JobsCompleted int    `json:"jobs_completed"`
		} `json:"runs"`
	}
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err == nil {
		err = json.Unmarshal(data, &s)
	}
	if err != nil || len(s.Runs) != 1 || s.Runs[0].Policy != "largest-backlog" || s.Runs[0].JobsCompleted == 0 {
		t.Fatalf("summary.json: %v %+v", err, s)
	}
	// The block is read strictly: a misspelt key is refused at its line.
	text, _ := os.ReadFile(filepath.Join(mod, "scenario.yaml"))
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte(strings.Replace(string(text), "max_running:", "max_runing:", 1)), 0o644)
	msg, err := run(bad, "--policy", "largest-backlog", "--out", filepath.Join(t.TempDir(), "o"))
	if err == nil || !regexp.MustCompile(`bad\.yaml:\d+: policies\.largest-backlog\.max_runing: unknown field`).MatchString(msg) {
		t.Fatalf("a misspelt key: %v\n%s", err, msg)
	}
	// Validate's error is placed under the block.
	os.WriteFile(bad, []byte(strings.Replace(string(text), "max_running: 40", "max_running: -1", 1)), 0o644)
	msg, err = run(bad, "--policy", "largest-backlog", "--out", filepath.Join(t.TempDir(), "o"))
	if err == nil || !regexp.MustCompile(`bad\.yaml:\d+: policies\.largest-backlog\.max_running: must be >= 0`).MatchString(msg) {
		t.Fatalf("an invalid setting: %v\n%s", err, msg)
	}
}
