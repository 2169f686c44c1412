package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/sim"
)

// otlpOut is the --otlp file of run or compare (docs/reference/outputs.md):
// each written run streams its jobs' spans into a part file of its own
// beside the target while the runs go in parallel; commit joins the parts
// in run order into the target through a temporary file renamed into
// place, so the file is the same however the runs were scheduled, and a
// failed command leaves neither it nor a part behind.
type otlpOut struct {
	target  string
	parts   []*os.File
	writers []*results.OTLPWriter
}

// newOTLPOut gives each of the first written specs a span sink.
func newOTLPOut(target string, sc *scenario.Scenario, specs []sim.RunSpec, written int) (*otlpOut, error) {
	if fi, err := os.Stat(target); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("--otlp %s: a directory, not a file", target)
	}
	o := &otlpOut{target: target}
	for i := range specs[:written] {
		f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".part*")
		if err != nil {
			o.abort()
			return nil, fmt.Errorf("--otlp: %w", results.CreateError(target, err))
		}
		w := results.NewOTLPWriter(f, results.OTLPRun{Label: specs[i].Label(), Scenario: specs[i].ScenarioFor(sc).Name, Seed: specs[i].Seed, Index: i})
		o.parts = append(o.parts, f)
		o.writers = append(o.writers, w)
		specs[i].Spans = w
	}
	return o, nil
}

// abort removes the parts.
func (o *otlpOut) abort() {
	for _, f := range o.parts {
		f.Close()
		os.Remove(f.Name())
	}
}

// commit writes the target from the parts, in run order.
func (o *otlpOut) commit() error {
	defer o.abort()
	for _, w := range o.writers {
		if err := w.Close(); err != nil {
			return fmt.Errorf("--otlp %s: %w", o.target, err)
		}
	}
	return results.WriteAtomic(o.target, func(w io.Writer) error {
		for _, f := range o.parts {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return err
			}
			if _, err := io.Copy(w, f); err != nil {
				return err
			}
		}
		return nil
	})
}

// errOTLPStdout refuses --otlp -: run and compare print their tables (or
// --json's summary) on stdout, which spans would be mixed into.
var errOTLPStdout = errors.New("--otlp -: stdout carries the command's tables; give a file")
