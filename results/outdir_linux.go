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

// mountPoint reports whether dir (an existing directory or file) is the
// root of a mount: on another mount than its parent (statx's mount id,
// which tells a bind mount of the same file system apart), or, where the
// kernel gives no mount id, on another device.
func mountPoint(dir, parent string) bool {
	var a, b unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, dir, 0, unix.STATX_MNT_ID, &a) == nil && unix.Statx(unix.AT_FDCWD, parent, 0, unix.STATX_MNT_ID, &b) == nil {
		if a.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 && a.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0 {
			return true
		}
		if a.Mask&b.Mask&unix.STATX_MNT_ID != 0 {
			return a.Mnt_id != b.Mnt_id
		}
	}
	sa, err1 := os.Stat(dir)
	sb, err2 := os.Stat(parent)
	if err1 != nil || err2 != nil {
		return false
	}
	da, ok1 := sa.Sys().(*syscall.Stat_t)
	db, ok2 := sb.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && da.Dev != db.Dev
}

// readOnly reports whether dir is on a file system mounted read-only.
func readOnly(dir string) bool {
	var st unix.Statfs_t
	return unix.Statfs(dir, &st) == nil && st.Flags&unix.ST_RDONLY != 0
}

// writable is nil if this process may create entries in dir.
func writable(dir string) error {
	return unix.Access(dir, unix.W_OK|unix.X_OK)
}
