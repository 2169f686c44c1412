package results

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzOutputs: no output folder (summary.json, series.csv, batches.csv
// as given) panics LoadOutputs; one it accepts has a summary of this
// schema with runs, and every row finite, of one of its runs and within
// that run's time, as many as summary.json records.
func FuzzOutputs(f *testing.F) {
	series := SeriesCSVHeader + "," + SeriesCSVCacheColumns + "\nscheduler,10,m,1,2,0,0,0,0,0,0\nscheduler,20,m,1,2,0,0,0,0.5,1,0\n"
	batches := BatchesCSVHeader + "\nscheduler,10,b,m,large,5,1,0\n"
	digest := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return hex.EncodeToString(sum[:])
	}
	summary := fmt.Sprintf(`{"schema": "evalsched-summary", "schema_version": %d, "scenario": "s", "seed": 1,
  "runs": [{"policy": "scheduler", "window_s": [0, 600], "jobs_arrived": 3, "jobs_completed": 2}],
  "files": [{"name": "series.csv", "rows": 2, "sha256": %q}, {"name": "batches.csv", "rows": 1, "sha256": %q}]}`,
		SchemaVersion, digest(series), digest(batches))
	f.Add([]byte(summary), []byte(series), []byte(batches))
	f.Add([]byte("{}"), []byte(""), []byte(""))
	f.Add([]byte(summary), []byte(series[:len(series)-5]), []byte(batches))
	f.Add([]byte(summary), []byte(SeriesCSVHeader+","+SeriesCSVCacheColumns+"\nscheduler,NaN,m,1,2,0,0,0,0,0,0\nother,1e308,m,1,2,0,0,0,2,0,0\n"), []byte(batches))
	f.Fuzz(func(t *testing.T, s, se, ba []byte) {
		dir := t.TempDir()
		for name, data := range map[string][]byte{"summary.json": s, "series.csv": se, "batches.csv": ba} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		o, err := LoadOutputs(dir)
		if err != nil {
			return
		}
		if o.Summary.Schema != "evalsched-summary" || len(o.Summary.Runs) == 0 {
			t.Fatalf("accepted a summary of schema %q with %d runs", o.Summary.Schema, len(o.Summary.Runs))
		}
		end := map[string]float64{}
		for _, r := range o.Summary.Runs {
			end[r.Policy] = r.Window[1]
		}
		check := func(what, policy string, t0 float64) {
			e, ok := end[policy]
			if !ok || math.IsNaN(t0) || math.IsInf(t0, 0) || t0 < 0 || t0 > e+1e-6*max(1, e) {
				t.Errorf("accepted a %s row of %q at %g (runs end %v)", what, policy, t0, end)
			}
		}
		for _, r := range o.Series {
			check("series", r.Policy, r.T)
		}
		for _, r := range o.Batches {
			check("batches", r.Policy, r.T)
		}
		for _, f := range o.Summary.Files {
			if have := map[string]int{"series.csv": len(o.Series), "batches.csv": len(o.Batches)}[f.Name]; int64(have) != f.Rows {
				t.Errorf("accepted %s: %d rows read, summary.json records %d", f.Name, have, f.Rows)
			}
		}
	})
}
