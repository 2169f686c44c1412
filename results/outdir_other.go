//go:build !linux

package results

import (
	"errors"
	"os"
)

// exchange is not available: Commit falls back to two renames.
func exchange(a, b string) error { return errors.New("no atomic exchange on this system") }

var errLocked = errors.New("locked")

// lockFile does not lock here: a second writer is not refused.
func lockFile(*os.File) error { return nil }

// mountPoint is not told here.
func mountPoint(dir, parent string) bool { return false }
