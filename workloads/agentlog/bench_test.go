package agentlog

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"testing"
	"time"
)

// writeSpreadOTLP writes, to path, an OTLP JSON Lines file of jobs agent
// jobs of calls calls each (a call a turn, each job its own trace) in the
// order that makes an importer wait longest: call k of every job, then
// call k+1 of every job, ..., and the jobs' invoke_agent spans last,
// after all their children; 1,000 spans a request line. It is written
// as it is made: nothing of the file is held.
func writeSpreadOTLP(tb testing.TB, path string, jobs, calls int) int64 {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var b []byte
	inLine := 0
	flush := func(last bool) {
		if inLine > 0 && (last || inLine == 1000) {
			b = append(b, "]}]}]}\n"...)
			w.Write(b)
			b, inLine = b[:0], 0
		}
	}
	open := func() {
		if inLine == 0 {
			b = append(b, `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"bench"}}]},"scopeSpans":[{"spans":[`...)
		} else {
			b = append(b, ',')
		}
		inLine++
	}
	const t0 = int64(1_767_225_600_000_000_000)
	span := func(j, k int, name string, start, end int64, attrs string) {
		open()
		b = fmt.Appendf(b, `{"traceId":"%032x","spanId":"%016x",`, j+1, uint64(j)<<24|uint64(k+1))
		if k >= 0 {
			b = fmt.Appendf(b, `"parentSpanId":"%016x",`, uint64(j)<<24)
		}
		b = append(b, `"name":"`...)
		b = append(b, name...)
		b = append(b, `","startTimeUnixNano":"`...)
		b = strconv.AppendInt(b, start, 10)
		b = append(b, `","endTimeUnixNano":"`...)
		b = strconv.AppendInt(b, end, 10)
		b = append(b, `","attributes":[`...)
		b = append(b, attrs...)
		b = append(b, "]}"...)
		flush(false)
	}
	jobStart := func(j int) int64 { return t0 + int64(j)*int64(time.Second) }
	const turn = 2400 * int64(time.Millisecond) // 900 ms a call, 1.5 s of tool time after it
	for k := range calls {
		for j := range jobs {
			s := jobStart(j) + int64(k)*turn
			attrs := fmt.Sprintf(`{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"gen_ai.request.model","value":{"stringValue":"m1"}},`+
				`{"key":"gen_ai.usage.input_tokens","value":{"intValue":"%d"}},{"key":"gen_ai.usage.output_tokens","value":{"intValue":"200"}},`+
				`{"key":"gen_ai.usage.cache_read.input_tokens","value":{"intValue":"900"}},{"key":"gen_ai.request.max_tokens","value":{"intValue":"4096"}}`, 1000+100*k)
			span(j, k, "chat m1", s, s+900*int64(time.Millisecond), attrs)
		}
	}
	for j := range jobs {
		attrs := fmt.Sprintf(`{"key":"gen_ai.operation.name","value":{"stringValue":"invoke_agent"}},{"key":"gen_ai.agent.name","value":{"stringValue":"coder"}},`+
			`{"key":"gen_ai.conversation.id","value":{"stringValue":"job-%d"}}`, j)
		span(j, -1, "invoke_agent coder", jobStart(j), jobStart(j)+int64(calls)*turn, attrs)
	}
	flush(true)
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}

// heapPeaks are the highest heap figures sampled while a function ran
// (runtime/metrics, every millisecond, less what was there before): Live
// is the heap marked live at a collection, what the function held;
// Objects adds what was garbage not yet collected, so it also depends
// on the collector's pacing.
type heapPeaks struct{ Live, Objects uint64 }

func peakHeap(fn func()) heapPeaks {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	var peak, base heapPeaks
	read := func() {
		metrics.Read(sample)
		peak.Live = max(peak.Live, sample[0].Value.Uint64())
		peak.Objects = max(peak.Objects, sample[1].Value.Uint64())
	}
	read()
	base, peak = peak, heapPeaks{}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				read()
			}
		}
	}()
	fn()
	close(stop)
	<-done
	runtime.GC() // the live figure of the last stretch
	read()
	return heapPeaks{Live: peak.Live - min(base.Live, peak.Live), Objects: peak.Objects - min(base.Objects, peak.Objects)}
}

// importSpread imports a writeSpreadOTLP file as sim trace import does,
// to io.Discard, and checks what it found.
func importSpread(tb testing.TB, path string, jobs, calls, budget int) {
	sum, skipped, err := Import(OTLP, []string{path}, ImportOptions{Catalogue: []string{"m1"}, SortBudget: budget, TempDir: filepath.Dir(path)},
		func(write func(io.Writer) error) error { return write(io.Discard) })
	if err != nil {
		tb.Fatal(err)
	}
	if sum.Jobs != jobs || sum.Calls != jobs*calls || sum.Turns != jobs*calls || skipped != 0 {
		tb.Fatalf("imported %+v, %d skipped; want %d jobs of %d calls", sum, skipped, jobs, calls)
	}
}

// BenchmarkOTLPImport imports OTLP files of 100-call agent jobs whose
// spans are spread over the whole file (writeSpreadOTLP), the largest of
// 2.5 million calls, as sim trace import does (default sort budget), and
// reports the peak heap of the import (peak-heap-MiB, sampled) beside the
// file's size: the peak stays put as the file grows. Run:
//
//	go test -run '^$' -bench OTLPImport -benchtime 1x -timeout 60m ./workloads/agentlog/
func BenchmarkOTLPImport(b *testing.B) {
	for _, calls := range []int{250_000, 2_500_000} {
		b.Run(fmt.Sprintf("calls=%d", calls), func(b *testing.B) {
			const perJob = 100
			jobs := calls / perJob
			path := filepath.Join(b.TempDir(), "spans.jsonl")
			size := writeSpreadOTLP(b, path, jobs, perJob)
			b.ReportAllocs()
			b.ResetTimer()
			var peak heapPeaks
			for range b.N {
				p := peakHeap(func() { importSpread(b, path, jobs, perJob, 0) })
				peak.Live, peak.Objects = max(peak.Live, p.Live), max(peak.Objects, p.Objects)
			}
			b.ReportMetric(float64(peak.Live)/(1<<20), "peak-live-MiB")
			b.ReportMetric(float64(peak.Objects)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(size)/(1<<20), "file-MiB")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(calls), "ns/call")
		})
	}
}

// TestOTLPImportMemoryBounded: the import's peak live heap does not grow
// with the file. Five times the calls (20,000 and 100,000, spread as in
// the benchmark, an 8 KiB sort budget so that both spill to more runs
// than are merged at once) may raise it by at most 4 MiB, while an
// importer holding a few fields of each call until the end (about 270
// bytes a call) would need some 20 MiB more, five times the margin. The
// margin is the noise of the figure: a collection counts as live what is
// allocated while it marks, which varies with the machine's load (3 to 5
// MiB for the same 20,000 calls on 2 shared cores), so each size is
// imported twice and the lower peak kept.
func TestOTLPImportMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and imports a 100,000-call file")
	}
	dir := t.TempDir()
	var peaks []uint64
	for _, jobs := range []int{200, 1000} {
		path := filepath.Join(dir, fmt.Sprintf("spans-%d.jsonl", jobs))
		writeSpreadOTLP(t, path, jobs, 100)
		// The least of two imports: the noise only adds.
		a := peakHeap(func() { importSpread(t, path, jobs, 100, 8<<10) }).Live
		b := peakHeap(func() { importSpread(t, path, jobs, 100, 8<<10) }).Live
		peaks = append(peaks, min(a, b))
		os.Remove(path)
	}
	t.Logf("peak live heap: %.1f MiB for 20,000 calls, %.1f MiB for 100,000", float64(peaks[0])/(1<<20), float64(peaks[1])/(1<<20))
	if peaks[1] > peaks[0]+4<<20 {
		t.Errorf("peak live heap %.1f MiB for 100,000 calls against %.1f MiB for 20,000: it grows with the file", float64(peaks[1])/(1<<20), float64(peaks[0])/(1<<20))
	}
}
