package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/google/go-cmp/cmp"
)

// folderFiles lists dir as the output lists name files: directories with
// a trailing slash, sim's marker left out, sorted.
func folderFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		switch {
		case e.Name() == results.OutputMarker:
		case e.IsDir():
			names = append(names, e.Name()+"/")
		default:
			names = append(names, e.Name())
		}
	}
	return names
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// TestOutputsListed: what run, compare (with --report, and a shard),
// merge, sweep and tune leave in --out is exactly what the command's --out help
// lists and what its last line names, in the order the line gives. (The
// lists were: help "summary.json and series.csv", line the same two,
// while compare also wrote batches.csv and headline.json.)
func TestOutputsListed(t *testing.T) {
	dir := t.TempDir()
	shards := filepath.Join(dir, "shards")
	sweepFile := filepath.Join(dir, "sweep.yaml")
	data, err := os.ReadFile("testdata/sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	small, _ := filepath.Abs("testdata/small.yaml")
	// One point, one seed: enough to write every file.
	os.WriteFile(sweepFile, []byte(strings.NewReplacer("scenario: small.yaml", "scenario: "+small, "seeds: 2", "seeds: 1",
		"[5, 20]", "[5]", "[1.1, 1.5]", "[1.1]").Replace(string(data))), 0o644)
	tuneFile := filepath.Join(dir, "tune.yaml")
	os.WriteFile(tuneFile, []byte("scenario: "+small+"\noverlay: {duration: 20m, warmup: 5m, events: []}\nseeds: 1\n"+
		"params:\n  - {key: policies.scheduler.target_depth, min: 2, max: 40, integer: true}\n"+
		"objective: {metric: throughput_per_hour, goal: max}\nbudget: 2\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		out  string // the folder the files are in
		help []string
		want []string
	}{
		{"run", []string{"run", "--scenario", "testdata/small.yaml"}, "", []string{"run", "--help"}, runOutputs},
		{"compare", []string{"compare", "--scenario", "delivery"}, "", []string{"compare", "--help"}, runOutputs},
		{"compare --report", []string{"compare", "--scenario", "delivery", "--report"}, "", []string{"compare", "--help"}, append(slices.Clone(runOutputs), reportOutputs...)},
		{"compare shard", []string{"compare", "--scenario", "delivery", "--seeds", "2", "--shard", "0/2", "--out", shards}, filepath.Join(shards, "shard-0"), []string{"compare", "--help"}, shardOutputs},
		{"compare shard 2", []string{"compare", "--scenario", "delivery", "--seeds", "2", "--shard", "1/2", "--out", shards}, filepath.Join(shards, "shard-1"), []string{"compare", "--help"}, shardOutputs},
		{"merge compare", []string{"merge", filepath.Join(shards, "shard-0"), filepath.Join(shards, "shard-1")}, "", []string{"merge", "--help"}, runOutputs},
		{"sweep", []string{"sweep", sweepFile}, "", []string{"sweep", "--help"}, sweepFiles},
		{"tune", []string{"tune", tuneFile}, "", []string{"tune", "--help"}, tuneFiles[:1]}, // no trade_off: no front.png
	} {
		t.Run(tc.name, func(t *testing.T) {
			args, out := tc.args, tc.out
			if out == "" {
				out = filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
				args = append([]string{args[0], "--out", out}, args[1:]...) // flags before arguments
			}
			_, stderr, code := runSim(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if diff := cmp.Diff(sorted(tc.want), folderFiles(t, out)); diff != "" {
				t.Errorf("%s: files (-listed +written):\n%s", out, diff)
			}
			if got, want := lastLine(stderr), "wrote "+out+"/: "+strings.Join(tc.want, ", "); got != want {
				t.Errorf("last line %q, want %q", got, want)
			}
			help, _, _ := runSim(t, tc.help...)
			i := strings.Index(help, "--out value")
			if i < 0 {
				t.Fatalf("no --out in %s", strings.Join(tc.help, " "))
			}
			outHelp, _, _ := strings.Cut(help[i:], "\n")
			for _, f := range tc.want {
				if !strings.Contains(outHelp, f) {
					t.Errorf("--out's help does not name %s: %s", f, outHelp)
				}
			}
		})
	}
}
