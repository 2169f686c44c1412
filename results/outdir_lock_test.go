package results_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/evalsched/lab/results"
)

// TestLockFileRemoved: an output directory's lock file (.NAME.lock beside
// it) is there only while a command holds it: gone after Commit, after
// Abort, after a refusal, and still there (held) when a second writer is
// refused as busy.
func TestLockFileRemoved(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "out")
	lock := filepath.Join(root, ".out.lock")
	exists := func() bool { _, err := os.Lstat(lock); return err == nil }

	s, err := results.StageDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if !exists() {
		t.Fatalf("no lock file while staged: %v", names(t, root))
	}
	if _, err := results.StageDir(out); !errors.As(err, new(*results.BusyError)) {
		t.Errorf("second writer: got %v, want a *BusyError", err)
	}
	if !exists() {
		t.Errorf("a refused second writer removed the first one's lock file")
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if exists() {
		t.Errorf("after Commit the lock file is left: %v", names(t, root))
	}

	s, err = results.StageDir(out)
	if err != nil {
		t.Fatal(err)
	}
	s.Abort()
	if exists() {
		t.Errorf("after Abort the lock file is left: %v", names(t, root))
	}

	// Refused: out holds a file sim did not write.
	if err := os.WriteFile(filepath.Join(out, "mine.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := results.StageDir(out); !errors.As(err, new(*results.ForeignFilesError)) {
		t.Fatalf("got %v, want a *ForeignFilesError", err)
	}
	if exists() {
		t.Errorf("after a refusal the lock file is left: %v", names(t, root))
	}

	unlock, err := results.LockDir(out)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if exists() {
		t.Errorf("after LockDir's unlock the lock file is left")
	}
}

// TestLockDirExclusive: however lockers interleave with the removal of
// the lock file, at most one holds the lock at a time (a locker that
// opened the file its holder then removed must not take it).
func TestLockDirExclusive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the lock is flock(2), taken on Linux only")
	}
	target := filepath.Join(t.TempDir(), "out")
	var holders, most, taken atomic.Int32
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2000 {
				unlock, err := results.LockDir(target)
				if err != nil {
					if !errors.As(err, new(*results.BusyError)) {
						t.Error(err)
						return
					}
					continue
				}
				taken.Add(1)
				if n := holders.Add(1); n > most.Load() {
					most.Store(n)
				}
				runtime.Gosched()
				holders.Add(-1)
				unlock()
			}
		}()
	}
	wg.Wait()
	if most.Load() > 1 {
		t.Errorf("%d lockers held the lock at once", most.Load())
	}
	if taken.Load() == 0 {
		t.Errorf("no locker ever took the lock")
	}
}
