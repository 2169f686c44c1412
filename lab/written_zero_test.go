package lab

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWrittenZeroInSweepAndTune: a grid value or a tune range that writes
// 0 for a setting whose 0 meant "use the default" is refused at its line of
// the sweep or tune file (a sweep labelled target_depth=0 a point that ran
// depth 8; a tune with min: 0 recommended target_depth: 0).
func TestWrittenZeroInSweepAndTune(t *testing.T) {
	const rule = ": must be >= 1, got 0 (leave the field out for the default)"
	for _, tc := range []struct {
		name, text, want string
		tune             bool
	}{
		{"sweep grid", "scenario: light-load\npolicy: scheduler\nseeds: 1\ngrid:\n  policies.scheduler.target_depth: [0, 4]\n",
			`:5: policies.scheduler.target_depth` + rule + ` (set by the overlay of "target_depth=0")`, false},
		{"sweep overlay", "scenario: light-load\npolicy: scheduler\nseeds: 1\noverlay:\n  policies: {scheduler: {step: 0}}\ngrid:\n  policies.scheduler.target_depth: [2, 4]\n",
			`:5: policies.scheduler.step` + rule + ` (set by the overlay of "target_depth=2")`, false},
		{"tune min 0", "scenario: light-load\npolicy: scheduler\nseeds: 1\nparams:\n  - {key: policies.scheduler.target_depth, min: 0, max: 64, integer: true}\nobjective: {metric: throughput_per_hour, goal: max}\nbudget: 2\n",
			`:5: policies.scheduler.target_depth` + rule + ` (set by the overlay of "target_depth=0")`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.yaml")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			var err error
			if tc.tune {
				_, _, _, err = LoadTune(path)
			} else {
				_, err = LoadSweep(path)
			}
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(path+tc.want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}
