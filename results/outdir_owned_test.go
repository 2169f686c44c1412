package results_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/evalsched/lab/results"
)

// TestOwnedFilesReplaced: a file a command writes inside its output
// directory under a name of the user's choosing (sim gate's --junit inside
// --out), recorded with Own, is the command's on the next run; the same
// file put there by hand is not; Own refuses a name sim writes itself.
func TestOwnedFilesReplaced(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "gate-out")
	write := func(owned ...string) error {
		s, err := results.StageDir(out)
		if err != nil {
			return err
		}
		defer s.Abort()
		for _, rel := range owned {
			p, err := s.Own(rel)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(s.Dir, "verdict.json"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return s.Commit()
	}
	for round := range 3 {
		if err := write("junit.xml", "ci/gate.md"); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for _, f := range []string{"junit.xml", "ci/gate.md", "verdict.json"} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Errorf("round %d: %v", round, err)
			}
		}
	}
	// Not recorded this time: the next run does not own them any more,
	// but this run replaced them, so they are gone.
	if err := write(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"junit.xml", "ci"} {
		if _, err := os.Stat(filepath.Join(out, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: left from the run before: %v", f, err)
		}
	}
	// By hand, beside a recorded one: the user's.
	if err := write("ci/gate.md"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "ci", "notes.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var fe *results.ForeignFilesError
	if err := write("ci/gate.md"); !errors.As(err, &fe) {
		t.Errorf("a file of the user's beside an owned one: got %v, want a *ForeignFilesError", err)
	}
	// A marker that is a FIFO lists nothing (and is not read: it would
	// never end).
	fifo := filepath.Join(root, "fifo")
	os.MkdirAll(fifo, 0o755)
	if err := syscall.Mkfifo(filepath.Join(fifo, results.OutputMarker), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	os.WriteFile(filepath.Join(fifo, "junit.xml"), nil, 0o644)
	done := make(chan error, 1)
	go func() {
		s, err := results.StageDir(fifo)
		if err == nil {
			s.Abort()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.As(err, &fe) {
			t.Errorf("a FIFO marker: got %v, want a *ForeignFilesError", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a FIFO marker: StageDir still reading it after 10 s")
	}

	s, err := results.StageDir(filepath.Join(root, "other"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Abort()
	for _, rel := range []string{"verdict.json", results.OutputMarker, "figures/x.png", "../x", "", "."} {
		if _, err := s.Own(rel); err == nil {
			t.Errorf("Own(%q): accepted", rel)
		}
	}
}
