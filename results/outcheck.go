package results

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// OutDirError refuses an output path the lab could not write and swap in.
// It is found before anything runs, so a command refuses at once instead
// of after its simulation.
type OutDirError struct {
	Path string // as given
	Why  string // follows Path in the message
}

func (e *OutDirError) Error() string { return e.Path + " " + e.Why }

// CheckOutDir refuses target, an output directory, if it could not be
// staged beside itself and swapped in: target a mount point (a rename
// cannot replace one: compared by mount, not only by device, so a bind
// mount is found too), or the nearest directory of its path that exists
// on a read-only file system or not writable by this process.
func CheckOutDir(target string) error {
	clean := filepath.Clean(target)
	if fi, err := os.Stat(clean); err == nil && fi.IsDir() && mountPoint(clean, filepath.Dir(clean)) {
		return &OutDirError{target, "is a mount point: sim writes an output directory beside it and swaps it in, which cannot replace a mount point; give a directory inside it"}
	}
	return checkParent(target, clean)
}

// CheckOutFile is CheckOutDir for an output file, written beside itself
// and renamed into place (WriteAtomic). A path that exists and is not a
// regular file (a pipe, a terminal) is written in place: not checked.
func CheckOutFile(path string) error {
	clean := filepath.Clean(path)
	fi, err := os.Stat(clean)
	if err == nil && !fi.Mode().IsRegular() {
		return nil
	}
	if err == nil && mountPoint(clean, filepath.Dir(clean)) {
		return &OutDirError{path, "is a mount point (a file mounted there): sim writes the file beside it and renames it into place, which cannot replace a mount point; give another path"}
	}
	if err := checkParent(path, clean); err != nil {
		return err
	}
	// A file's directory is not made (an output directory's is).
	if _, err := os.Stat(filepath.Dir(clean)); errors.Is(err, fs.ErrNotExist) {
		return &OutDirError{path, fmt.Sprintf("cannot be written: the directory %s does not exist (create it first)", filepath.Dir(clean))}
	}
	return nil
}

// checkParent refuses clean if the nearest directory of its path that
// exists (where sim creates the rest and its staging directory) is on a
// read-only file system or cannot be written.
func checkParent(shown, clean string) error {
	dir := filepath.Dir(clean)
	for {
		fi, err := os.Stat(dir)
		if err == nil {
			if !fi.IsDir() {
				return &OutDirError{shown, fmt.Sprintf("cannot be made: %s is a file, not a directory", dir)}
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return &OutDirError{shown, fmt.Sprintf("cannot be written: %v", err)}
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	if readOnly(dir) {
		return &OutDirError{shown, fmt.Sprintf("is on a read-only file system (%s is mounted read-only): give a place that can be written", dir)}
	}
	if err := writable(dir); err != nil {
		return &OutDirError{shown, fmt.Sprintf("cannot be written: %s: %v", dir, err)}
	}
	return nil
}
