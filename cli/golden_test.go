package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// TestCompareGolden runs sim compare on a small scenario and checks
// summary.json against testdata/small.summary.golden.json: numbers within a
// relative tolerance of 1e-9 (absolute 1e-9 near zero), everything else exact.
// Run `go test ./cli -run Golden -update` after an intended change and
// review the diff.
func TestCompareGolden(t *testing.T) {
	dir := t.TempDir()
	if err := compareCommand(io.Discard, options{stderr: io.Discard, scenario: "testdata/small.yaml", seed: 42, dir: dir, top: 10}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "small.summary.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	var diffs []string
	jsonDiff("", w, g, &diffs)
	for i, d := range diffs {
		if i == 20 {
			t.Errorf("... and %d more", len(diffs)-20)
			break
		}
		t.Error(d)
	}
	// The comparison must hold what a reviewer needs.
	var s struct {
		Runs       []struct{ Policy string } `json:"runs"`
		Comparison []struct {
			Model      string   `json:"model"`
			Multiplier *float64 `json:"multiplier"`
		} `json:"comparison"`
	}
	if err := json.Unmarshal(got, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Runs) != 2 || s.Runs[0].Policy != "fixed-lane" || s.Runs[1].Policy != "scheduler" || len(s.Comparison) == 0 {
		t.Fatalf("summary lacks both runs or the comparison: %+v", s)
	}
}

// jsonDiff reports differences between want and got as (-want +got) lines.
func jsonDiff(path string, want, got any, out *[]string) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			*out = append(*out, fmt.Sprintf("%s: -%v +%v", path, want, got))
			return
		}
		for k := range w {
			jsonDiff(path+"."+k, w[k], g[k], out)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				*out = append(*out, fmt.Sprintf("%s.%s: unexpected +%v", path, k, g[k]))
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			*out = append(*out, fmt.Sprintf("%s: -%d items +%v", path, len(w), got))
			return
		}
		for i := range w {
			jsonDiff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i], out)
		}
	case float64:
		g, ok := got.(float64)
		if !ok || math.Abs(g-w) > 1e-9*math.Max(1, math.Abs(w)) {
			*out = append(*out, fmt.Sprintf("%s: -%v +%v", path, want, got))
		}
	default:
		if want != got {
			*out = append(*out, fmt.Sprintf("%s: -%v +%v", path, want, got))
		}
	}
}
