package cli

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/evalsched/lab/lab"
	"github.com/evalsched/lab/results"
)

// TestBaselineStudyGolden: docs/studies/baseline.md is what `sim study`
// writes for the default scenario, so the study cannot drift from the
// scenario or the code. Rewrite it with -update after an intended change.
func TestBaselineStudyGolden(t *testing.T) {
	const path = "../docs/studies/baseline.md"
	got, err := baselineStudy("default", 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := results.WriteFileAtomic(path, []byte(got)); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s is stale: `go test ./cli -run TestBaselineStudyGolden -update` (or `sim study`) rewrites it", path)
	}
}

// TestBaselineStudyVerdicts: the study's verdicts follow from its numbers,
// computed here apart from the generator: a lane is within 6–20× exactly
// when its geometric mean multiplier is, and the source's table is set
// beside every lane.
func TestBaselineStudyVerdicts(t *testing.T) {
	text, err := os.ReadFile("../docs/studies/baseline.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range lab.SourceTable {
		var row string
		for _, line := range strings.Split(string(text), "\n") {
			if strings.HasPrefix(line, "| "+s.Model+" | ") && strings.Contains(line, "×") {
				row = line
				break
			}
		}
		if row == "" {
			t.Fatalf("no multiplier row for %s", s.Model)
		}
		cells := strings.Split(row, " | ")
		var src, mean float64
		if _, err := fmtSscan(cells[1], &src); err != nil || src != s.Multiplier {
			t.Errorf("%s: source cell %q, want %g×", s.Model, cells[1], s.Multiplier)
		}
		if _, err := fmtSscan(cells[2], &mean); err != nil {
			t.Fatalf("%s: lab cell %q: %v", s.Model, cells[2], err)
		}
		want := "no"
		if mean >= 6 && mean <= 20 {
			want = "yes"
		}
		if cells[4] != want {
			t.Errorf("%s: lab %.2f×, in-range cell %q, want %q", s.Model, mean, cells[4], want)
		}
	}
}

// fmtSscan reads the number at the start of a cell such as "7.73×".
func fmtSscan(cell string, v *float64) (int, error) {
	return fmt.Sscanf(strings.TrimSuffix(strings.TrimSpace(cell), "×"), "%g", v)
}
