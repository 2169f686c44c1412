package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/google/go-cmp/cmp"
)

const testVariants = `
variants:
  old: {policy: fixed-lane}
  new: {}
  shallow: {policies: {scheduler: {target_depth: 1}}}
  more-models:
    models: [{name: extra, streams: 4, decode_rate: 40}]
    workload: {models: {hot: [extra]}}
`

func variantFile(t *testing.T) string {
	t.Helper()
	base, err := os.ReadFile("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "v.yaml")
	if err := os.WriteFile(path, append(base, testVariants...), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readSummary(t *testing.T, dir string) results.Summary {
	t.Helper()
	var s results.Summary
	readJSON(t, filepath.Join(dir, "summary.json"), &s)
	return s
}

// TestCompareVariants: variants that only name the two policies reproduce
// the plain old/new compare run for run (a second way to the same numbers);
// a third variant is compared against the first.
func TestCompareVariants(t *testing.T) {
	file := variantFile(t)
	plain, byVariant := t.TempDir(), t.TempDir()
	if _, stderr, code := runSim(t, "compare", "--scenario", file, "--seed", "5", "--out", plain); code != 0 {
		t.Fatalf("plain compare: exit %d: %s", code, stderr)
	}
	stdout, stderr, code := runSim(t, "compare", "--scenario", file, "--seed", "5", "--out", byVariant,
		"--variant", "old", "--variant", "new", "--variant", "shallow")
	if code != 0 {
		t.Fatalf("variant compare: exit %d: %s", code, stderr)
	}
	want, got := readSummary(t, plain), readSummary(t, byVariant)
	if len(got.Runs) != 3 || len(got.Variants) != 2 {
		t.Fatalf("got %d runs and %d variant comparisons, want 3 and 2", len(got.Runs), len(got.Variants))
	}
	for i, name := range []string{"old", "new"} {
		r := got.Runs[i]
		if r.Policy != name || r.Variant == nil || r.Variant.Policy != want.Runs[i].Policy {
			t.Errorf("run %d: policy %q variant %+v, want %q running %q", i, r.Policy, r.Variant, name, want.Runs[i].Policy)
		}
		r.Policy, r.Variant = want.Runs[i].Policy, nil
		if diff := cmp.Diff(want.Runs[i], r); diff != "" {
			t.Errorf("variant %s differs from the plain run (-want +got):\n%s", name, diff)
		}
	}
	if diff := cmp.Diff(want.Comparison, got.Comparison); diff != "" {
		t.Errorf("comparison (-want +got):\n%s", diff)
	}
	if v := got.Variants[1]; v.Baseline != "old" || v.Variant != "shallow" {
		t.Errorf("second comparison is %s against %s, want shallow against old", v.Variant, v.Baseline)
	}
	if !strings.Contains(stdout, "shallow against old") {
		t.Errorf("no table for the third variant:\n%s", stdout)
	}
}

// TestCompareVariantAddsModel: a variant may add a model to the base
// catalogue; its rows name the model (the output writer follows each run's
// own catalogue).
func TestCompareVariantAddsModel(t *testing.T) {
	file := variantFile(t)
	dir := t.TempDir()
	if _, stderr, code := runSim(t, "compare", "--scenario", file, "--out", dir, "--variant", "new", "--variant", "more-models"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "series.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\nmore-models,") || !strings.Contains(string(data), ",extra,") {
		t.Errorf("series.csv has no row of the added model under its variant")
	}
}

func TestCompareVariantErrors(t *testing.T) {
	file := variantFile(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"one variant", []string{"--variant", "old"}, "at least two"},
		{"unknown", []string{"--variant", "old", "--variant", "nope"}, `no variant "nope" (have old, new, shallow, more-models)`},
		{"twice", []string{"--variant", "old", "--variant", "old"}, `"old" given twice`},
		{"one, none declared", []string{"--scenario", "light-load", "--variant", "old"}, "embedded:light-load declares no variants"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			args := append([]string{"compare", "--scenario", file, "--out", dir}, tc.args...)
			_, stderr, code := runSim(t, args...)
			if code == 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want non-zero and %q", code, stderr, tc.want)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("output directory written after a refusal")
			}
		})
	}
}
