package cli

import (
	"bytes"
	"os"
	"testing"
)

// TestProgressOff: no bar when stderr is not a terminal, nor with --quiet;
// the description counts the runs done and in flight.
func TestProgressOff(t *testing.T) {
	if newProgress(&bytes.Buffer{}, "x", 2) != nil {
		t.Error("a bar on a buffer")
	}
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if newProgress(f, "x", 2) != nil {
		t.Error("a bar on a regular file")
	}
	progressOff.Store(true)
	defer progressOff.Store(false)
	if newProgress(os.Stderr, "x", 2) != nil {
		t.Error("a bar with --quiet")
	}
	p := &progress{label: "compare", frac: []float64{1, 0.5, 0, 0.2}}
	if got, want := p.describe(), "compare: runs 1/4 done, 2 in flight"; got != want {
		t.Errorf("describe %q, want %q", got, want)
	}
}
