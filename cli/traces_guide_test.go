package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// guideCommands are the shell commands of a guide's ```sh blocks from the
// heading from on, continuation lines joined (and lines inside a quoted
// string).
func guideCommands(t *testing.T, page, from string) []string {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, from)
	if i < 0 {
		t.Fatalf("%s: no %q", page, from)
	}
	var cmds []string
	in := false
	pending := ""
	for _, line := range strings.Split(text[i:], "\n") {
		switch {
		case line == "```sh":
			in = true
		case in && line == "```":
			in = false
		case in:
			line = pending + strings.TrimSpace(line)
			if strings.HasSuffix(line, `\`) {
				pending = strings.TrimSuffix(line, `\`)
				continue
			}
			if strings.Count(line, "'")%2 == 1 { // inside a quoted string: the newline is the string's
				pending = line + "\n"
				continue
			}
			pending = ""
			if line != "" {
				cmds = append(cmds, line)
			}
		}
	}
	return cmds
}

// TestTracesGuideTour runs docs/guides/traces.md's commands from "Real
// runs in" on, as a reader would from the repository root (its /tmp
// paths moved into a temporary folder): import, fit, the fitted behaviour
// spliced into a scenario, generated and compared, a LiteLLM log imported.
// A command that stops working, or a path that moves, fails here.
func TestTracesGuideTour(t *testing.T) {
	tmp := t.TempDir()
	cmds := guideCommands(t, "../docs/guides/traces.md", "## Real runs in")
	if len(cmds) < 7 {
		t.Fatalf("%d commands: the guide's tour is shorter than this test knows", len(cmds))
	}
	for _, line := range cmds {
		line = strings.ReplaceAll(line, "/tmp/", tmp+"/")
		var cmd *exec.Cmd
		if rest, ok := strings.CutPrefix(line, "go run ./cmd/sim "); ok {
			var args []string
			for _, f := range strings.Fields(rest) {
				if strings.HasPrefix(f, "#") {
					break
				}
				args = append(args, f)
			}
			cmd = exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), "SIM_TEST_AS_MAIN=1")
		} else {
			cmd = exec.Command("sh", "-c", line)
		}
		cmd.Dir = ".."
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out.String())
		}
	}
	for _, f := range []string{"oxdna.jsonl", "behaviour.yaml", "fitted.yaml", "fitted-jobs.jsonl", "fitted/summary.json", "prod.jsonl", "replay.json"} {
		if _, err := os.Stat(filepath.Join(tmp, f)); err != nil {
			t.Errorf("the tour did not write %s: %v", f, err)
		}
	}
}
