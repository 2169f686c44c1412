package results_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/evalsched/lab/results"
)

// writeOutput stages dir with one file and commits it, as a command
// writing its --out does.
func writeOutput(t *testing.T, dir, name, text string) error {
	t.Helper()
	s, err := results.StageDir(dir)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(s.Dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return s.Commit()
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestNestedOutputsCarried: another command's output kept inside an output
// directory (the gate's default out/gate inside compare's out) is sim's,
// not the user's: the outer directory can be written, and rewritten, and
// the nested one is carried over whole; anything else inside is still
// refused; a nested output being written refuses the swap.
func TestNestedOutputsCarried(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "out")
	gate := filepath.Join(out, "gate")
	if err := writeOutput(t, gate, "verdict.json", "{}"); err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		if err := writeOutput(t, out, "summary.json", "{}"); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if got, err := os.ReadFile(filepath.Join(gate, "verdict.json")); err != nil || string(got) != "{}" {
			t.Fatalf("round %d: the gate's verdict was not carried over: %q, %v", round, got, err)
		}
		// The nested output's lock file is gone with its writer.
		if n := names(t, out); slices.Contains(n, ".gate.lock") || !slices.Contains(n, "gate") || !slices.Contains(n, "summary.json") {
			t.Fatalf("round %d: out holds %v", round, n)
		}
	}
	// The nested output can itself be rewritten inside the outer one.
	if err := writeOutput(t, gate, "verdict.json", `{"v": 2}`); err != nil {
		t.Fatal(err)
	}

	// Held by another writer: the outer swap is refused, nothing changes.
	unlock, err := results.LockDir(gate)
	if err != nil {
		t.Fatal(err)
	}
	before := names(t, out)
	err = writeOutput(t, out, "summary.json", "{}")
	var busy *results.BusyError
	if !errors.As(err, &busy) {
		t.Errorf("a nested output being written: got %v, want a *BusyError", err)
	}
	if after := names(t, out); !slices.Equal(before, after) {
		t.Errorf("out changed under a refused swap: %v → %v", before, after)
	}
	unlock()

	// A folder without the marker, or a file of the user's, is not sim's.
	for _, foreign := range []string{"mine/notes.txt", "notes.txt", ".notes.lock/x"} {
		dir := filepath.Join(root, "case", filepath.Dir(foreign))
		os.RemoveAll(filepath.Join(root, "case"))
		if err := writeOutput(t, filepath.Join(root, "case", "gate"), "verdict.json", "{}"); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "case", foreign), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		var fe *results.ForeignFilesError
		if err := writeOutput(t, filepath.Join(root, "case"), "summary.json", "{}"); !errors.As(err, &fe) {
			t.Errorf("%s: got %v, want a *ForeignFilesError", foreign, err)
		}
	}
}
