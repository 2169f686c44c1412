package results

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// TestRemoveStagingBesideAWriter: a staging directory that a run's
// goroutine is still writing into when a signal aborts the command is
// gone afterwards. A single os.RemoveAll loses that race when a file is
// made after its last read of the directory (its final rmdir then fails
// with "directory not empty"), which left .NAME.partial-N behind in
// TestExitCodesDocumented under load.
func TestRemoveStagingBesideAWriter(t *testing.T) {
	for round := range 200 {
		dir := filepath.Join(t.TempDir(), ".out.partial-"+strconv.Itoa(round))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range 50 {
			os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)), nil, 0o644)
		}
		var stop atomic.Bool
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // a run still writing its files
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				os.WriteFile(filepath.Join(dir, "w"+strconv.Itoa(i)), nil, 0o644)
			}
		}()
		removeStaging(dir)
		left, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".out.partial-*"))
		stop.Store(true)
		wg.Wait()
		if len(left) > 0 {
			t.Fatalf("round %d: %v still there after removeStaging", round, left)
		}
	}
}
