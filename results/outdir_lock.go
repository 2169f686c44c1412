package results

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
)

// BusyError refuses a second writer into an output directory another
// process (or another command of this one) is writing.
type BusyError struct{ Dir string }

func (e *BusyError) Error() string {
	return fmt.Sprintf("%s is being written by another sim (its lock %s is held): wait for it, or give another --out", e.Dir, lockPath(e.Dir))
}

// lockPath is the lock file of an output directory: hidden, beside it (a
// lock inside it would be swapped out with the directory).
func lockPath(target string) string {
	clean := filepath.Clean(target)
	return filepath.Join(filepath.Dir(clean), "."+filepath.Base(clean)+".lock")
}

// LockDir takes the exclusive lock on writing target, without waiting:
// a second writer gets *BusyError instead of racing the first to the swap.
// The lock is the kernel's (flock), so it goes with the process that held
// it, however that ends. The lock file is there only while it is held:
// unlock removes it before letting go, and a locker that took the lock on
// a file no longer at its path (its holder removed it meanwhile) lets go
// and tries the one there now, so two writers never hold two files.
func LockDir(target string) (unlock func(), err error) {
	parent := filepath.Dir(filepath.Clean(target))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	path := lockPath(target)
	// Held while the file is made and registered: once AbortAll has taken
	// it (for good), no lock file is made that it would not remove.
	held.Lock()
	defer held.Unlock()
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, err
		}
		if err := lockFile(f); err != nil {
			f.Close()
			if errors.Is(err, errLocked) {
				return nil, &BusyError{Dir: target}
			}
			return nil, err
		}
		if atPath(f, path) {
			h := &heldLock{f: f, path: path}
			held.locks[h] = true
			return h.release, nil
		}
		f.Close()
	}
}

// heldLock is a lock file this process holds. Every one is in held until
// released, so a process stopping on a signal removes them all
// (releaseHeld), whatever step of staging or swapping it was at.
type heldLock struct {
	f    *os.File
	path string
}

var held = struct {
	sync.Mutex
	locks map[*heldLock]bool
}{locks: map[*heldLock]bool{}}

// release removes the lock file (if it is still the one locked) and closes
// it, once.
func (h *heldLock) release() {
	held.Lock()
	defer held.Unlock()
	h.releaseLocked()
}

func (h *heldLock) releaseLocked() {
	if !held.locks[h] {
		return
	}
	delete(held.locks, h)
	if atPath(h.f, h.path) {
		os.Remove(h.path)
	}
	h.f.Close()
}

// releaseHeld releases every lock the process holds and keeps any other
// from being taken (AbortAll: the process is exiting).
func releaseHeld() {
	held.Lock() // never unlocked
	for h := range held.locks {
		h.releaseLocked()
	}
}

// atPath reports whether the open file f is the file at path.
func atPath(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}

// lockOut checks that target could be staged and swapped in
// (CheckOutDir) and takes its lock; a lock that cannot be made beside it
// is an *OutDirError too.
func lockOut(target string) (unlock func(), err error) {
	if err := CheckOutDir(target); err != nil {
		return nil, err
	}
	unlock, err = LockDir(target)
	var busy *BusyError
	if err != nil && !errors.As(err, &busy) {
		return nil, &OutDirError{target, fmt.Sprintf("cannot be locked beside itself: %v", err)}
	}
	return unlock, err
}

// lockName is an output directory's lock file (lockPath).
var lockName = regexp.MustCompile(`^\.(.+)\.lock$`)

// lockNested takes the lock of every output kept inside dir — each
// folder sim wrote there, and each output whose lock file is there (being
// written now) — so none is being written while dir is swapped; one held
// by another sim refuses the swap (a *BusyError). Lock files last only
// while held, so a folder is locked by its name, not found by its lock.
func lockNested(dir string) (unlock func(), err error) {
	var unlocks []func()
	unlock = func() {
		for _, u := range slices.Backward(unlocks) {
			u()
		}
	}
	entries, _ := os.ReadDir(dir)
	var nested []string
	for _, e := range entries {
		if m := lockName.FindStringSubmatch(e.Name()); m != nil && e.Type().IsRegular() {
			nested = append(nested, m[1])
		} else if e.IsDir() && !stagingName.MatchString(e.Name()) && nestedOutput(dir, e) {
			nested = append(nested, e.Name())
		}
	}
	slices.Sort(nested)
	for _, name := range slices.Compact(nested) {
		u, err := LockDir(filepath.Join(dir, name))
		if err != nil {
			unlock()
			return nil, err
		}
		unlocks = append(unlocks, u)
	}
	return unlock, nil
}
