package results

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// exchange swaps two paths atomically.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}

var errLocked = errors.New("locked")

// lockFile takes an exclusive flock on f without waiting.
func lockFile(f *os.File) error {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return errLocked
	}
	return err
}

// mountPoint reports whether dir (an existing directory) is on another
// device than its parent.
func mountPoint(dir, parent string) bool {
	a, err1 := os.Stat(dir)
	b, err2 := os.Stat(parent)
	if err1 != nil || err2 != nil || !a.IsDir() {
		return false
	}
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && sa.Dev != sb.Dev
}
