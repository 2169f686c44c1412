package workloads

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// limited stops a source after n jobs.
type limited struct {
	src Source
	n   int
}

func (l *limited) Next() (Job, bool) {
	if l.n == 0 {
		return Job{}, false
	}
	l.n--
	return l.src.Next()
}
func (l *limited) Err() error { return l.src.Err() }

// largeConfig makes about 100,000 jobs an hour.
func largeConfig() Config {
	cfg := testConfig()
	cfg.Batches = BatchProcess{RatePerHour: 1000, Size: Dist{Kind: "uniform", Min: 50, Max: 150}}
	cfg.Background = BatchProcess{}
	return cfg
}

// writeLargeTrace writes n generated jobs to a file in dir.
func writeLargeTrace(tb testing.TB, dir string, n int, format JobFormat) string {
	tb.Helper()
	g := generate(tb, largeConfig(), 100000*time.Hour, 11)
	path := filepath.Join(dir, "jobs-"+strconv.Itoa(n)+"."+string(format))
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	got, err := WriteTrace(w, format, &limited{src: g, n: n}, testCatalogue, ClassNames(g.Classes()))
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil || got != n {
		tb.Fatalf("wrote %d of %d jobs: %v", got, n, err)
	}
	return path
}

// replayPeak replays a trace and returns the jobs read and the peak heap in
// use (HeapAlloc, sampled every `every` jobs), in MB.
func replayPeak(tb testing.TB, path string, every int) (int, float64) {
	tb.Helper()
	classes, err := BehaviourClasses(largeConfig())
	if err != nil {
		tb.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	runtime.GC()
	var ms runtime.MemStats
	peak := uint64(0)
	sample := func() {
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
	}
	r := NewTraceReader(f, path, "", testCatalogue, classes, TraceOptions{})
	n := 0
	for _, ok := r.Next(); ok; _, ok = r.Next() {
		n++
		if n%every == 0 {
			sample()
		}
	}
	sample()
	if err := r.Err(); err != nil {
		tb.Fatal(err)
	}
	return n, float64(peak) / (1 << 20)
}

// TestTraceReplayMemoryBounded: replaying ten times as many jobs needs no
// more heap. The reader holds one record; a reader that kept its jobs would
// need some 100 bytes a job, 18 MB more for the larger trace.
func TestTraceReplayMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 40 MB")
	}
	const n = 20000
	dir := t.TempDir()
	small := writeLargeTrace(t, dir, n, "jsonl")
	large := writeLargeTrace(t, dir, 10*n, "jsonl")
	gotSmall, peakSmall := replayPeak(t, small, 1000)
	gotLarge, peakLarge := replayPeak(t, large, 1000)
	t.Logf("peak heap: %.1f MB at %d jobs, %.1f MB at %d jobs", peakSmall, gotSmall, peakLarge, gotLarge)
	if gotSmall != n || gotLarge != 10*n {
		t.Fatalf("replayed %d and %d jobs, want %d and %d", gotSmall, gotLarge, n, 10*n)
	}
	if peakLarge > 1.5*peakSmall+4 {
		t.Errorf("peak heap grows with the trace: %.1f MB at %d jobs, %.1f MB at %d", peakSmall, n, peakLarge, 10*n)
	}
}

// BenchmarkTraceReplay2_5M writes a 2.5-million-job JSON Lines trace (about
// 500 MB, once) and replays it, reporting the peak heap:
//
//	go test -run '^$' -bench TraceReplay -benchtime 1x ./workloads/
func BenchmarkTraceReplay2_5M(b *testing.B) {
	const n = 2500000
	path := writeLargeTrace(b, b.TempDir(), n, "jsonl")
	st, _ := os.Stat(path)
	b.ResetTimer()
	var peak float64
	for i := 0; i < b.N; i++ {
		got, p := replayPeak(b, path, 10000)
		if got != n {
			b.Fatalf("replayed %d jobs", got)
		}
		peak = max(peak, p)
	}
	b.ReportMetric(peak, "peak-heap-MB")
	b.ReportMetric(float64(st.Size())/(1<<20), "file-MB")
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}
