package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJSONFlag: --json on run and compare prints exactly summary.json on
// stdout; --version prints a version; completion lists the commands.
func TestJSONFlag(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--scenario", "testdata/small.yaml", "--json"},
		{"compare", "--scenario", "testdata/small.yaml", "--json"},
	} {
		t.Run(args[0], func(t *testing.T) {
			dir := t.TempDir()
			stdout, stderr, code := runSim(t, append(args, "--out", dir)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			want, err := os.ReadFile(filepath.Join(dir, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), stdout); diff != "" {
				t.Errorf("stdout is not summary.json (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("version and completion", func(t *testing.T) {
		if stdout, _, code := runSim(t, "--version"); code != 0 || !strings.HasPrefix(stdout, "sim version ") {
			t.Errorf("--version: exit %d, %q", code, stdout)
		}
		stdout, _, _ := runSim(t, "--generate-bash-completion")
		for _, c := range []string{"gate", "sweep", "tune", "merge"} {
			if !strings.Contains(stdout, c+"\n") {
				t.Errorf("completion lacks %s:\n%s", c, stdout)
			}
		}
	})
}
