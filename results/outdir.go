package results

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// An output directory is always one complete run: everything is written
// into a hidden staging directory beside it and swapped into place at the
// end, atomically where the file system can exchange two directories
// (Linux renameat2 RENAME_EXCHANGE), so a reader (or a run killed at any
// moment) sees either the previous complete outputs or the new ones, never
// a mix, and no file of an earlier run survives beside the new ones.

// OutputMarker is the file that marks a directory as written by sim: only
// such a directory (or an empty or missing one) is replaced by --out.
const OutputMarker = ".sim-output"

// legacyOutputs are the names a sim output directory held before the
// marker existed; a directory holding only these is replaced too.
var legacyOutputs = []string{"summary.json", "series.csv", "batches.csv", "report.html", "report.md", "figures"}

// simOutputs are the names the lab's commands write at the top of an
// output directory (run, compare and report; compare's shards; sweep and
// merge; tune; gate), and simDirs the folders among them, with the names
// their entries may have. Anything else in a directory is the user's: the
// directory is refused, not replaced, even with the marker.
var (
	simOutputs = []string{OutputMarker, "summary.json", "series.csv", "batches.csv", "report.html", "report.md", "figures",
		"compare-shard.json", "sweep.json", "sweep.csv", "summary.csv", "points", "tune.csv", "front.png", "verdict.json", HeadlineFile}
	simDirs = map[string]func(string) bool{
		"figures": func(n string) bool { return strings.HasSuffix(n, ".png") || strings.HasSuffix(n, ".svg") },
		"points":  func(n string) bool { return pointName.MatchString(n) },
	}
	pointName = regexp.MustCompile(`^p[0-9]{4,}\.csv$`)
)

// StagedDir is an output directory being written.
type StagedDir struct {
	Target string // the directory the outputs are for
	Dir    string // the staging directory they are written into until Commit
	unlock func() // releases the lock on Target (see LockDir)
	done   bool   // committed or aborted: Abort is then a no-op
	keep   bool   // resumable: Abort keeps the directory for a rerun
}

// ForeignFilesError refuses an --out directory holding files sim did not
// write (replacing it would delete them).
type ForeignFilesError struct {
	Dir   string
	Files []string
}

func (e *ForeignFilesError) Error() string {
	return fmt.Sprintf("%s holds files sim did not write (%s): give a new or empty directory, or one sim wrote", e.Dir, strings.Join(e.Files, ", "))
}

// StageDir checks that target may be replaced (missing, empty, or a sim
// output directory) and creates an empty staging directory beside it, so a
// target that cannot be written fails before anything is simulated.
//
// It also takes the directory's lock (LockDir), held until Commit or Abort,
// and refuses a target that could not be swapped in (CheckOutDir: a mount
// point, a read-only file system), which would fail only after the
// simulation.
func StageDir(target string) (*StagedDir, error) {
	unlock, err := lockOut(target)
	if err != nil {
		return nil, err
	}
	// The staging directory is made and registered under staging's lock,
	// so AbortAll (a signal) either runs first, and this waits for the
	// process to exit, or finds it registered: made outside the lock, a
	// signal between its making and its registering left it behind. The
	// lock file is known to AbortAll from the moment it is taken (lockOut).
	staging.Lock()
	s, err := stageLocked(target)
	if err == nil {
		s.unlock = unlock
		staging.dirs[s] = true
	}
	staging.Unlock()
	if err != nil {
		unlock()
		return nil, err
	}
	return s, nil
}

// ResumableStage is StageDir for a command that can resume (sim sweep):
// its staging directory has a fixed name beside target (.NAME.resume) and
// is kept when the command fails or stops, so a rerun continues in it;
// fresh says it was made now. Commit swaps it in as StageDir's does.
func ResumableStage(target string) (s *StagedDir, fresh bool, err error) {
	unlock, err := lockOut(target)
	if err != nil {
		return nil, false, err
	}
	defer func() {
		if err != nil {
			unlock()
		}
	}()
	if err := checkReplaceable(target); err != nil {
		return nil, false, err
	}
	clean := filepath.Clean(target)
	dir := filepath.Join(filepath.Dir(clean), "."+filepath.Base(clean)+".resume")
	s = &StagedDir{Target: clean, Dir: dir, unlock: unlock, keep: true}
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		if err := removeStaleTemps(dir); err != nil {
			return nil, false, err
		}
		if err := checkReplaceable(dir); err != nil {
			return nil, false, err
		}
	} else {
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, false, &OutDirError{target, fmt.Sprintf("cannot be staged beside itself: %v", err)}
		}
		if err := os.WriteFile(filepath.Join(dir, OutputMarker), nil, 0o644); err != nil {
			os.RemoveAll(dir)
			return nil, false, err
		}
		fresh = true
	}
	staging.Lock()
	staging.dirs[s] = true
	staging.Unlock()
	return s, fresh, nil
}

// staleTemp is the name of a file WriteFileAtomic was writing when its
// command stopped (".NAME.tmpDIGITS").
var staleTemp = regexp.MustCompile(`^\..+\.tmp[0-9]+$`)

// removeStaleTemps removes, from a resumable staging directory and its
// folders, the temporary files of writes a stopped command did not finish:
// sim's own, never a finished output.
func removeStaleTemps(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && staleTemp.MatchString(d.Name()) {
			return os.Remove(p)
		}
		return nil
	})
}

// Discard removes a resumable staging directory (one holding another
// command's work, refused) and releases the lock.
func (s *StagedDir) Discard() {
	s.keep = false
	s.Abort()
}

// staging is every StagedDir of the process not yet committed or aborted,
// for AbortAll; its lock is held across a Commit's swap.
var staging = struct {
	sync.Mutex
	dirs map[*StagedDir]bool
}{dirs: map[*StagedDir]bool{}}

// AbortAll removes every staging directory of the process, after any swap
// under way has finished, and keeps any other from starting: for a
// process about to exit on a signal.
func AbortAll() {
	staging.Lock() // never unlocked: the process is exiting
	for s := range staging.dirs {
		if !s.keep {
			removeStaging(s.Dir)
		}
		s.release() // its lock file too
	}
	releaseHeld() // and any lock taken outside a registered stage
}

// removeStaging is os.RemoveAll(dir) while a run's goroutine may still be
// writing into dir (AbortAll: the process stops mid-command). A file made
// after RemoveAll's last read of the directory fails its final rmdir
// ("directory not empty") and left dir behind. So dir is first renamed
// aside, to dir.old (still a staging name: stagingName), where no writer,
// which names its files by dir's path, can add to it, and removal is tried
// again should a file made at that very moment get in. Nothing clears a
// staging directory left behind later: the retries are what remove it.
func removeStaging(dir string) {
	if aside := dir + ".old"; os.Rename(dir, aside) == nil {
		dir = aside
	}
	for range 100 {
		if os.RemoveAll(dir) == nil {
			return
		}
	}
}

func stageLocked(target string) (*StagedDir, error) {
	if err := checkReplaceable(target); err != nil {
		return nil, err
	}
	clean := filepath.Clean(target)
	parent := filepath.Dir(clean)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, &OutDirError{target, fmt.Sprintf("cannot be made: %v", err)}
	}
	dir, err := os.MkdirTemp(parent, "."+filepath.Base(clean)+".partial-")
	if err != nil {
		return nil, &OutDirError{target, fmt.Sprintf("cannot be staged beside itself: %v", err)}
	}
	s := &StagedDir{Target: clean, Dir: dir}
	if err := os.Chmod(dir, 0o755); err != nil { // MkdirTemp makes it private
		os.RemoveAll(dir)
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, OutputMarker), nil, 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

func checkReplaceable(target string) error {
	if fi, err := os.Lstat(target); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link: give the directory itself (the swap would replace the link, not what it points to)", target)
	}
	if fi, err := os.Stat(target); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s is a file, not a directory: give a directory for the outputs", target)
	}
	entries, err := os.ReadDir(target)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	marked := slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == OutputMarker })
	allowed := legacyOutputs
	var owned map[string]bool
	if marked {
		allowed = simOutputs
		if owned, err = readOwned(target); err != nil {
			return err
		}
	}
	var foreign []string
	for _, e := range entries {
		name := e.Name()
		if !slices.Contains(allowed, name) {
			if bad := notOwned(target, name, owned); len(bad) == 0 {
				continue
			} else if !nestedOutput(target, e) {
				foreign = append(foreign, bad...)
			}
			continue
		}
		ok, isDir := simDirs[name]
		if isDir != e.IsDir() {
			foreign = append(foreign, name)
			continue
		}
		if !isDir {
			continue
		}
		inner, err := os.ReadDir(filepath.Join(target, name))
		if err != nil {
			return err
		}
		for _, f := range inner {
			if f.IsDir() || !ok(f.Name()) {
				foreign = append(foreign, filepath.Join(name, f.Name()))
			}
		}
	}
	if len(foreign) > 0 {
		return &ForeignFilesError{Dir: target, Files: foreign}
	}
	return nil
}

// Commit makes the staged files durable and swaps them in as Target; the
// previous outputs are removed, and the lock released.
func (s *StagedDir) Commit() error {
	defer s.release()
	staging.Lock()
	defer staging.Unlock()
	delete(staging.dirs, s)
	s.done = true
	if err := checkReplaceable(s.Target); err != nil { // a file put there while the command ran
		os.RemoveAll(s.Dir)
		return err
	}
	if err := syncTree(s.Dir); err != nil {
		os.RemoveAll(s.Dir)
		return err
	}
	unlockNested, err := lockNested(s.Target)
	if err != nil {
		os.RemoveAll(s.Dir)
		return err
	}
	defer unlockNested()
	if _, err := os.Lstat(s.Target); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(s.Dir, s.Target); err != nil {
			os.RemoveAll(s.Dir)
			return err
		}
	} else {
		if err := exchange(s.Dir, s.Target); err != nil {
			// No atomic exchange here: two renames, with a window in which
			// Target is missing (never half-written).
			old := s.Dir + ".old"
			if err := os.Rename(s.Target, old); err != nil {
				os.RemoveAll(s.Dir)
				return err
			}
			if err := os.Rename(s.Dir, s.Target); err != nil {
				os.Rename(old, s.Target)
				os.RemoveAll(s.Dir)
				return err
			}
			s.Dir = old
		}
		// s.Dir now holds the previous outputs: the nested ones go over
		// first, and if one cannot, nothing of it is removed.
		if err := carryNested(s.Dir, s.Target); err != nil {
			return fmt.Errorf("%s: an output kept inside it could not be carried over (%v); the previous directory is kept as %s", s.Target, err, s.Dir)
		}
		os.RemoveAll(s.Dir)
	}
	return syncPath(filepath.Dir(s.Target))
}

// Abort removes the staging directory and releases the lock.
func (s *StagedDir) Abort() {
	if s.done {
		return
	}
	s.done = true
	staging.Lock()
	delete(staging.dirs, s)
	staging.Unlock()
	if !s.keep {
		os.RemoveAll(s.Dir)
	}
	s.release()
}

func (s *StagedDir) release() {
	if s.unlock != nil {
		s.unlock()
		s.unlock = nil
	}
}

// LinkFrom puts the named files of directory from (those that exist) into
// the staging directory, by hard link where possible, else by copy: the
// starting point of a step that adds to an existing output (sim report adds
// to Target; sim merge takes a shard's files).
func (s *StagedDir) LinkFrom(from string, names ...string) error {
	for _, name := range names {
		src, dst := filepath.Join(from, name), filepath.Join(s.Dir, name)
		if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if os.Link(src, dst) == nil {
			continue
		}
		if err := copyFile(src, dst); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// syncTree fsyncs every file and directory under dir.
func syncTree(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return syncPath(path)
	})
}

func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// nestedOutput says whether an entry of dir is another command's output
// kept inside it (sim gate's default out/gate inside compare's out): a
// folder sim wrote or is writing (it holds the marker) or an output's
// lock file. Replacing dir carries these over (carryNested); they are
// never the user's files.
func nestedOutput(dir string, e fs.DirEntry) bool {
	if e.IsDir() {
		_, err := os.Lstat(filepath.Join(dir, e.Name(), OutputMarker))
		return err == nil
	}
	return e.Type().IsRegular() && lockName.MatchString(e.Name())
}

// stagingName is a staging directory beside an output (StageDir's
// .NAME.partial-N, its .old, ResumableStage's .NAME.resume): the writer
// of NAME holds NAME's lock.
var stagingName = regexp.MustCompile(`^\..+\.(partial-[0-9]+(\.old)?|resume)$`)

// carryNested moves the outputs kept inside the previous directory old
// into its replacement dir.
func carryNested(old, dir string) error {
	entries, err := os.ReadDir(old)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if nestedOutput(old, e) {
			if err := os.Rename(filepath.Join(old, e.Name()), filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
