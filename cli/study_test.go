package cli

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/studies"
)

// TestStudyGolden: every cheap study's file (studies.Studies, Cheap) is what
// its generator writes, so a study cannot drift from the scenarios or the
// code. The expensive ones (baseline's 10 seeds included, ~18 s of CPU)
// are checked by `sim study --check NAME` in .ci/run. `go test ./cli -run TestStudyGolden -update` rewrites the cheap
// ones; `sim study --all` rewrites every one.
func TestStudyGolden(t *testing.T) {
	for _, s := range studies.Studies {
		if !s.Cheap {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			path := "../" + s.File
			got, err := s.Generate(studies.StudyOptions{Scenario: "default", First: 1, Seeds: 10})
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				if err := results.WriteFileAtomic(path, []byte(got)); err != nil {
					t.Fatal(err)
				}
				return
			}
			if msg := checkStudy(path, got); msg != "" {
				t.Errorf("%s\n(`go test ./cli -run TestStudyGolden/%s -update` or `sim study %s` rewrites it)", msg, s.Name, s.Name)
			}
		})
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
	for _, s := range studies.SourceTable {
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
