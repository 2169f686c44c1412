package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReproduceLine runs the command the report's reproduce line names and
// checks it writes the same summary.json.
func TestReproduceLine(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "jobs.jsonl")
	if _, stderr, code := runSim(t, "trace", "gen", "--scenario", "testdata/small.yaml", "--seed", "5", "--out", trace); code != 0 {
		t.Fatalf("trace gen: exit %d: %s", code, stderr)
	}
	cases := []struct {
		name string
		args []string
	}{
		{"compare with seeds", []string{"compare", "--scenario", "testdata/small.yaml", "--seed", "3", "--seeds", "2"}},
		{"run a policy", []string{"run", "--scenario", "testdata/small.yaml", "--policy", "scheduler", "--seed", "4"}},
		{"compare a trace", []string{"compare", "--scenario", "testdata/small.yaml", "--seed", "5", "--trace", trace}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			first := filepath.Join(dir, "first"+string(rune('a'+i)))
			if _, stderr, code := runSim(t, append(c.args, "--out", first, "--report")...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			md, err := os.ReadFile(filepath.Join(first, "report.md"))
			if err != nil {
				t.Fatal(err)
			}
			m := regexp.MustCompile(`(?m)^- \*\*reproduce\*\*: (.*)$`).FindSubmatch(md)
			if m == nil {
				t.Fatalf("report.md has no reproduce line")
			}
			// report.md escapes Markdown; the test scenario and trace paths need none but "_".
			args := strings.Fields(strings.ReplaceAll(string(m[1]), `\_`, "_"))
			if len(args) < 2 || args[0] != "sim" {
				t.Fatalf("reproduce line %q does not start with sim", m[1])
			}
			again := filepath.Join(dir, "again"+string(rune('a'+i)))
			if _, stderr, code := runSim(t, append(args[1:], "--out", again)...); code != 0 {
				t.Fatalf("%s: exit %d: %s", m[1], code, stderr)
			}
			want, err := os.ReadFile(filepath.Join(first, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(again, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, got) {
				t.Errorf("%s wrote a different summary.json (-want +got):\n%s", m[1], cmp.Diff(string(want), string(got)))
			}
		})
	}
}
