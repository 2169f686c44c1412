package results

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSeedsBounded: a sweep or tune file asking for more seeds than
// MaxSeeds is refused at the file and line of its seeds key, as compare
// --seeds is (a tune file once took seeds: 2147483648 and ran out of
// memory building the list).
func TestSeedsBounded(t *testing.T) {
	sweep := "scenario: light-load\npolicy: scheduler\n# the seeds:\nseeds: %s\ngrid:\n  policies.scheduler.target_depth: [4, 16]\n"
	tune := "scenario: light-load\npolicy: scheduler\n\nseeds: %s\nparams:\n  - {key: policies.scheduler.target_depth, min: 2, max: 64}\nobjective: {metric: throughput_per_hour, goal: max}\nbudget: 2\n"
	for _, tc := range []struct {
		name, text, seeds, want string
		load                    func(path string) error
	}{
		{"sweep at the limit", sweep, "1000", "", func(p string) error { _, err := LoadSweep(p); return err }},
		{"sweep past", sweep, "1001", "F:4: seeds: must be in 1..1000, got 1001", func(p string) error { _, err := LoadSweep(p); return err }},
		{"tune at the limit", tune, "1000", "", func(p string) error { _, _, _, err := LoadTune(p); return err }},
		{"tune past", tune, "1001", "F:4: seeds: must be in 1..1000, got 1001", func(p string) error { _, _, _, err := LoadTune(p); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.yaml")
			if err := os.WriteFile(path, []byte(fmt.Sprintf(tc.text, tc.seeds)), 0o644); err != nil {
				t.Fatal(err)
			}
			got := ""
			if err := tc.load(path); err != nil {
				got = err.Error()
			}
			want := tc.want
			if want != "" {
				want = path + want[1:]
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}
