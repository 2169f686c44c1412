package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCompletionInShells loads each shell's script from sim completion in
// the real shell (zsh's also as _sim in $fpath) and completes command lines: "sim " offers the
// commands, "sim compare --" offers compare's flags and nothing else. The
// shells run the test binary as sim (through a script named sim on PATH).
// A shell that is not installed is skipped with how to install it (.ci/run
// installs them).
func TestCompletionInShells(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	wrapper := "#!/bin/sh\nSIM_TEST_AS_MAIN=1 exec " + shq(os.Args[0]) + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "sim"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	capture, err := filepath.Abs("testdata/zsh-capture.zsh")
	if err != nil {
		t.Fatal(err)
	}
	// Each shell's way of asking for the candidates of line: the command
	// to run, given the script's file; the candidates are the first
	// tab-separated field of each output line.
	shells := []struct {
		name  string
		ask   func(script, line string) []string
		setup string
	}{
		{"bash", func(script, line string) []string {
			words := strings.Fields(line)
			if strings.HasSuffix(line, " ") {
				words = append(words, "")
			}
			quoted := make([]string, len(words))
			for i, w := range words {
				quoted[i] = shq(w)
			}
			return []string{"bash", "--norc", "--noprofile", "-c", "source " + shq(script) + "; COMP_WORDS=(" + strings.Join(quoted, " ") + "); " +
				"COMP_CWORD=" + strconv.Itoa(len(words)-1) + "; _sim_complete; printf '%s\\n' \"${COMPREPLY[@]}\""}
		}, ""},
		{"zsh", func(script, line string) []string { return []string{"zsh", "-f", capture, script, line} }, "apt-get install -y zsh"},
		{"zsh-fpath", func(script, line string) []string { return []string{"zsh", "-f", capture, script, line} }, "apt-get install -y zsh"},
		{"fish", func(script, line string) []string {
			return []string{"fish", "--no-config", "-c", "source " + shq(script) + "; complete -C " + shq(line)}
		}, "apt-get install -y fish"},
	}
	commands := []string{"run", "compare", "trace", "report", "gate", "sweep", "tune", "merge", "study", "scenarios", "completion"}
	compareFlags := []string{"--scenario", "--seed", "--seeds", "--variant", "--policy", "--out", "--report", "--json", "--trace"}
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			shell, _, _ := strings.Cut(sh.name, "-")
			fpath := strings.HasSuffix(sh.name, "-fpath")
			if _, err := exec.LookPath(shell); err != nil {
				t.Skipf("%s is not on PATH: install it (%s) to test its completion script", shell, sh.setup)
			}
			// Sourced, the script is not named _sim: zsh's takes a file of
			// that name for a completion function in $fpath (zsh-fpath).
			script := filepath.Join(dir, "sim-completion."+shell)
			if fpath {
				os.MkdirAll(filepath.Join(dir, "fpath"), 0o755)
				script = filepath.Join(dir, "fpath", "_sim")
			}
			if err := os.WriteFile(script, []byte(mustSimOut(t, "completion", shell)), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				line      string
				want      []string
				allPrefix string // every candidate starts with it
			}{
				{"sim ", commands, ""},
				{"sim compare --", compareFlags, "--"},
				{"sim compare --se", []string{"--seed", "--seeds"}, "--se"},
			} {
				argv := sh.ask(script, tc.line)
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
				cmd.Dir = dir
				home := filepath.Join(dir, "home-"+sh.name)
				cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+home,
					"XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+filepath.Join(home, ".local/share"), "TMPDIR="+dir, "ZDOTDIR="+home)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				cancel()
				if err != nil {
					t.Fatalf("%q: %s: %v\n%s", tc.line, argv[0], err, stderr.String())
				}
				var got []string
				for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
					if c, _, _ := strings.Cut(l, "\t"); c != "" {
						got = append(got, c)
					}
				}
				for _, w := range tc.want {
					if !slices.Contains(got, w) {
						t.Errorf("%s: completing %q does not offer %s; offered %q", sh.name, tc.line, w, got)
					}
				}
				for _, c := range got {
					if !strings.HasPrefix(c, tc.allPrefix) {
						t.Errorf("%s: completing %q offers %q", sh.name, tc.line, c)
					}
				}
			}
		})
	}
}

// shq quotes s for a POSIX shell (and fish): in single quotes.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
