// Package simtest simulates the outputs that tests of the readers,
// figures and reports work on, once per test binary.
package simtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/sim"
)

// The fixtures: a short comparison and a single run of the light-load
// scenario, simulated once per test binary and written into each test's own
// directory as sim compare / sim run would write them.
var (
	fixtureOnce sync.Once
	fixture     struct {
		models  []string
		compare results.Summary
		single  results.Summary
		data    []results.RunData
	}
	fixtureErr error
)

// Outputs writes the comparison and the single run into two folders of
// the test's own and returns them.
func Outputs(t testing.TB) (compareDir, runDir string) {
	t.Helper()
	fixtureOnce.Do(func() { fixtureErr = simulateFixtures() })
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	dir := t.TempDir()
	compareDir, runDir = filepath.Join(dir, "compare"), filepath.Join(dir, "run")
	if err := results.WriteOutputs(compareDir, fixture.compare, fixture.models, fixture.data); err != nil {
		t.Fatal(err)
	}
	// The single run is the scheduler's: sim run's output shape.
	if err := results.WriteOutputs(runDir, fixture.single, fixture.models, fixture.data[1:]); err != nil {
		t.Fatal(err)
	}
	return compareDir, runDir
}

func simulateFixtures() error {
	sc, err := scenario.LoadScenario("embedded:light-load")
	if err != nil {
		return err
	}
	// Long enough for the burst of large batches at 40m.
	sc.Duration = 45 * time.Minute
	sc.Warmup = 5 * time.Minute
	worlds, err := sim.Compare(sc, 1, []string{"fixed-lane", "scheduler"}, nil, nil)
	if err != nil {
		return err
	}
	var runs []results.Run
	for _, w := range worlds {
		d := w.Measured()
		fixture.data = append(fixture.data, d)
		runs = append(runs, results.Summarize(d))
	}
	fixture.models = sc.Catalogue()
	fixture.compare = results.Summary{Schema: "evalsched-summary", SchemaVersion: results.SchemaVersion, Scenario: sc.Name, Seed: 1,
		Runs: runs, Comparison: results.Compare(runs[0], runs[1])}
	fixture.single = results.Summary{Schema: "evalsched-summary", SchemaVersion: results.SchemaVersion, Scenario: sc.Name, Seed: 1,
		Runs: runs[1:]}
	return nil
}

// WriteSummary writes s as DIR/summary.json.
func WriteSummary(t testing.TB, dir string, s results.Summary) {
	t.Helper()
	if err := results.WriteJSON(filepath.Join(dir, "summary.json"), s); err != nil {
		t.Fatal(err)
	}
}

// Seal records in DIR/summary.json the rows and sha256 of DIR's
// series.csv and batches.csv as they are (as sim records the files it
// writes), for a folder a test made by hand. Rows are counted with
// encoding/csv, apart from the reader's counting. A missing file is
// written as a header only.
func Seal(t testing.TB, dir string) {
	t.Helper()
	var s results.Summary
	if err := results.ReadJSONFile(filepath.Join(dir, "summary.json"), &s); err != nil {
		t.Fatal(err)
	}
	s.Files = nil
	for name, header := range map[string]string{"series.csv": results.SeriesCSVHeader, "batches.csv": results.BatchesCSVHeader} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err != nil {
			WriteFile(t, dir, name, header+"\n")
		}
	}
	for _, name := range results.RowFileNames {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil {
			recs = nil // a broken file: the reader says why, before any count
		}
		sum := sha256.Sum256(data)
		s.Files = append(s.Files, results.RowFile{Name: name, Rows: int64(max(len(recs)-1, 0)), SHA256: hex.EncodeToString(sum[:])})
	}
	WriteSummary(t, dir, s)
}

// WriteFile writes content as DIR/NAME.
func WriteFile(t testing.TB, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
