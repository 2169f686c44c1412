package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestKilledRunLeavesOneCompleteOutput: a compare killed (SIGKILL or SIGINT)
// at moments spread over its run leaves its --out directory holding either
// the previous run's complete outputs or the new run's, byte for byte, never
// a mix — and an uninterrupted run gives the new ones; SIGINT leaves no
// lock file.
func TestKilledRunLeavesOneCompleteOutput(t *testing.T) {
	files := []string{"summary.json", "series.csv", "batches.csv"}
	reference := func(seed string) map[string][]byte {
		dir := filepath.Join(t.TempDir(), "out")
		if _, stderr, code := runSim(t, "compare", "--scenario", "testdata/small.yaml", "--seed", seed, "--out", dir); code != 0 {
			t.Fatalf("reference run: exit %d: %s", code, stderr)
		}
		out := map[string][]byte{}
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			out[f] = data
		}
		return out
	}
	old, new := reference("1"), reference("2")
	// Assumes the run takes longer than the first delays; the last is past
	// its end, so both outcomes are seen.
	start := time.Now()
	reference("2")
	length := time.Since(start)
	for i, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGINT} {
		for _, frac := range []float64{0, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1.5} {
			dir := filepath.Join(t.TempDir(), "out")
			for f, data := range old {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(os.Args[0], "compare", "--scenario", "testdata/small.yaml", "--seed", "2", "--out", dir)
			cmd.Env = append(os.Environ(), "SIM_TEST_AS_MAIN=1")
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Duration(frac * float64(length)))
			cmd.Process.Signal(sig)
			cmd.Wait()
			got := map[string][]byte{}
			for _, f := range files {
				data, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatalf("signal %d at %.0f%%: %s missing: %v", i, 100*frac, f, err)
				}
				got[f] = data
			}
			// SIGINT is handled: the lock file goes with the command.
			if _, err := os.Lstat(filepath.Join(filepath.Dir(dir), ".out.lock")); sig == syscall.SIGINT && err == nil {
				t.Errorf("%v at %.0f%% of the run: the lock file .out.lock is left", sig, 100*frac)
			}
			isOld, isNew := equalFiles(got, old), equalFiles(got, new)
			if !isOld && !isNew {
				t.Errorf("%v at %.0f%% of the run: the directory mixes runs or holds a partial one", sig, 100*frac)
			}
			t.Logf("%v at %.0f%%: old %v new %v", sig, 100*frac, isOld, isNew)
		}
	}
}

func equalFiles(a, b map[string][]byte) bool {
	for k, v := range b {
		if !bytes.Equal(a[k], v) {
			return false
		}
	}
	return true
}
