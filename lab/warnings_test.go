package lab

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/scenario/scenariotest"
	"github.com/google/go-cmp/cmp"
)

// TestPointWarningsNameTheirLine: a setting the controller does not read
// is named at the line that sets it: a sweep's overlay or grid line in the
// sweep file, the scenario file's own line otherwise (not the merged
// tree's line, which for an overlay's node is offset by overlayLine).
func TestPointWarningsNameTheirLine(t *testing.T) {
	dir := t.TempDir()
	scenarioFile := filepath.Join(dir, "sc.yaml")
	// scenariotest.Valid ends in its policies mapping: the block goes there.
	sc := scenariotest.Valid + "  scheduler: {step: 2}\n"
	stepLine := strconv.Itoa(strings.Count(scenariotest.Valid, "\n") + 1)
	if err := os.WriteFile(scenarioFile, []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		sweep string
		want  []string // each warning's "FILE:LINE: KEY" start
	}{
		{"the scenario sets it", "scenario: sc.yaml\npolicy: scheduler\nseeds: 1\ngrid:\n  policies.scheduler.target_depth: [4]\n",
			[]string{"SC:" + stepLine + ": policies.scheduler.step"}},
		{"the overlay sets it", "scenario: sc.yaml\npolicy: scheduler\noverlay:\n  policies: {scheduler: {step_mode: additive}}\nseeds: 1\ngrid:\n  policies.scheduler.target_depth: [4]\n",
			[]string{"SC:" + stepLine + ": policies.scheduler.step", "SWEEP:4: policies.scheduler.step_mode"}},
		{"the grid sets it", "scenario: sc.yaml\npolicy: scheduler\nseeds: 1\ngrid:\n  policies.scheduler.step: [1, 4]\n",
			[]string{"SWEEP:5: policies.scheduler.step"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, "s.yaml")
			if err := os.WriteFile(file, []byte(tc.sweep), 0o644); err != nil {
				t.Fatal(err)
			}
			sw, err := LoadSweep(file)
			if err != nil {
				t.Fatal(err)
			}
			p := sw.Points[len(sw.Points)-1]
			v, err := BuildPoint(p, map[string]*scenario.Scenario{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range PointWarnings(p, v.Scenario) {
				start, _, _ := strings.Cut(w, " has no effect")
				start = strings.ReplaceAll(start, scenarioFile, "SC")
				got = append(got, strings.ReplaceAll(start, file, "SWEEP"))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}
