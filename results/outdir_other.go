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

// readOnly is not told here: the write itself fails.
func readOnly(string) bool { return false }

// writable is not told here: the write itself fails.
func writable(string) error { return nil }
