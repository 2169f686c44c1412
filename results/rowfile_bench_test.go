package results_test

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"

	"github.com/evalsched/lab/results"
)

// BenchmarkRowFiles: streaming series rows (hashed and counted as sim
// writes them) and reading the folder back (checked row by row, hashed),
// each beside the sha256 of the same bytes alone, so the digest's share
// of each is read as a ratio of one run; the write reports 0 allocs per
// row.
func BenchmarkRowFiles(b *testing.B) {
	const rows = 1 << 16
	models := []string{"model-a", "model-b", "model-c", "model-d"}
	row := func(i int) results.SeriesRow {
		return results.SeriesRow{T: float64(i/len(models)) * 10, Model: int32(i % len(models)), Running: 12, Limit: 40, Depth: 3, Inflight: 17, Waiting: 2}
	}
	summary := results.Summary{Schema: "evalsched-summary", SchemaVersion: results.SchemaVersion,
		Runs: []results.Run{{Policy: "scheduler", Window: [2]float64{0, rows * 10}}}}
	dir := filepath.Join(b.TempDir(), "out")
	o, err := results.NewOutputWriter(dir, models, []string{"scheduler"})
	if err != nil {
		b.Fatal(err)
	}
	for i := range rows {
		o.Run(0).SeriesRow(row(i))
	}
	if err := o.Commit(summary); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "series.csv"))
	if err != nil {
		b.Fatal(err)
	}
	perRow := int64(len(data) / rows)
	b.Run("write row", func(b *testing.B) {
		o, err := results.NewOutputWriter(filepath.Join(b.TempDir(), "out"), models, []string{"scheduler"})
		if err != nil {
			b.Fatal(err)
		}
		defer o.Abort()
		w := o.Run(0)
		b.SetBytes(perRow)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			w.SeriesRow(row(i))
		}
	})
	b.Run("sha256 of a row", func(b *testing.B) {
		h := sha256.New()
		line := data[len(data)-int(perRow):]
		b.SetBytes(perRow)
		b.ReportAllocs()
		for range b.N {
			h.Write(line)
		}
	})
	b.Run("load folder", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for range b.N {
			if _, err := results.LoadOutputs(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sha256 of the folder's series.csv", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for range b.N {
			sha256.Sum256(data)
		}
	})
}
