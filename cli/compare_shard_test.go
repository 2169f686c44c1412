package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareShardsMerge: compare --seeds run as shards (flag, Kubernetes
// and Slurm array variables) and merged gives byte for byte the files of the
// unsharded run.
func TestCompareShardsMerge(t *testing.T) {
	file := variantFile(t)
	for _, tc := range []struct {
		name  string
		extra []string
		env   func(i int) []string
	}{
		{"flag", nil, nil},
		{"kubernetes", nil, func(i int) []string { return []string{"JOB_COMPLETION_INDEX=" + itoa(i), "SIM_SHARDS=2"} }},
		{"slurm, variants", []string{"--variant", "old", "--variant", "new", "--variant", "shallow"},
			func(i int) []string { return []string{"SLURM_ARRAY_TASK_ID=" + itoa(i), "SLURM_ARRAY_TASK_COUNT=2"} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			base := append([]string{"compare", "--scenario", file, "--seed", "2", "--seeds", "3"}, tc.extra...)
			if _, stderr, code := runSimEnv(t, nil, append(base, "--out", filepath.Join(root, "whole"))...); code != 0 {
				t.Fatalf("unsharded: exit %d: %s", code, stderr)
			}
			var shards []string
			for i := range 2 {
				args := append(base, "--out", filepath.Join(root, "sharded"))
				var env []string
				if tc.env == nil {
					args = append(args, "--shard", itoa(i)+"/2")
				} else {
					env = tc.env(i)
				}
				if _, stderr, code := runSimEnv(t, env, args...); code != 0 {
					t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
				}
				shards = append(shards, filepath.Join(root, "sharded", "shard-"+itoa(i)))
			}
			merged := filepath.Join(root, "merged")
			if _, stderr, code := runSimEnv(t, nil, append([]string{"merge", "--out", merged}, shards...)...); code != 0 {
				t.Fatalf("merge: exit %d: %s", code, stderr)
			}
			for _, f := range []string{"summary.json", "series.csv", "batches.csv"} {
				want, _ := os.ReadFile(filepath.Join(root, "whole", f))
				got, err := os.ReadFile(filepath.Join(merged, f))
				if err != nil || !bytes.Equal(want, got) {
					t.Errorf("%s: merged differs from the unsharded run (%v)", f, err)
				}
			}
		})
	}
	t.Run("missing shard", func(t *testing.T) {
		root := t.TempDir()
		if _, stderr, code := runSimEnv(t, nil, "compare", "--scenario", file, "--seeds", "3", "--shard", "0/2", "--out", root); code != 0 {
			t.Fatalf("shard: exit %d: %s", code, stderr)
		}
		_, stderr, code := runSimEnv(t, nil, "merge", "--out", filepath.Join(root, "merged"), filepath.Join(root, "shard-0"))
		if code == 0 || !strings.Contains(stderr, "no shard ran seed") {
			t.Errorf("exit %d, %q: want a refusal naming the missing seed", code, stderr)
		}
	})
}

func itoa(i int) string { return string(rune('0' + i)) }
