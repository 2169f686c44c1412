package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeNamesTheMissingShard: a merge of shards 0 and 2 of 3 (the task
// of shard 1 never ran) names shard 1/3, for a sweep and for compare
// --seeds.
func TestMergeNamesTheMissingShard(t *testing.T) {
	t.Run("sweep", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "s")
		for _, i := range []string{"0", "2"} {
			mustSim(t, []string{"SLURM_ARRAY_TASK_ID=" + i, "SLURM_ARRAY_TASK_COUNT=3"}, "sweep", "--out", out, "testdata/sweep.yaml")
		}
		_, stderr, code := runSim(t, "merge", "--out", t.TempDir(), filepath.Join(out, "shard-0"), filepath.Join(out, "shard-2"))
		if code != exitError || !strings.Contains(stderr, "shard 1/3 did not run") {
			t.Errorf("merge without shard 1 of 3: exit %d, %q; want exit 1 naming shard 1/3", code, stderr)
		}
	})
	t.Run("compare", func(t *testing.T) {
		file := variantFile(t)
		out := t.TempDir()
		for _, sh := range []string{"0/3", "2/3"} {
			mustSim(t, nil, "compare", "--scenario", file, "--seeds", "3", "--shard", sh, "--out", out)
		}
		_, stderr, code := runSim(t, "merge", "--out", filepath.Join(out, "merged"), filepath.Join(out, "shard-0"), filepath.Join(out, "shard-2"))
		if code != exitError || !strings.Contains(stderr, "shard 1/3 did not run") {
			t.Errorf("merge without shard 1 of 3: exit %d, %q; want exit 1 naming shard 1/3", code, stderr)
		}
	})
}
