package agentlog

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkOTLPImport imports an OTLP JSON Lines file of 1,000 agent jobs
// of 100 calls each (one request a job) and reports the heap held once
// every span is read (retained-B/call): what grows with the input, since
// a job's spans may come anywhere. Run:
//
//	go test -run '^$' -bench OTLPImport -benchtime 1x ./workloads/agentlog/
func BenchmarkOTLPImport(b *testing.B) {
	const jobs, calls = 1000, 100
	path := filepath.Join(b.TempDir(), "spans.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	job := specJob{model: "m1", turns: make([]specTurn, calls)}
	for i := range job.turns {
		job.turns[i] = specTurn{calls: []specCall{{dur: 900, in: 1000 + 100*i, out: 200, cr: 900}}, gap: 1500}
	}
	for j := range jobs {
		job.id, job.start = fmt.Sprintf("job-%d", j), int64(j)*1000
		spans := otlpSpans(job, byte(j), otlpStyle{group: "agent"})
		for _, sp := range spans { // distinct trace per job
			sp["traceId"] = fmt.Sprintf("%032x", j+1)
		}
		line, _ := json.Marshal(otlpRequest(spans))
		w.Write(line)
		w.WriteByte('\n')
	}
	w.Flush()
	f.Close()
	fi, _ := os.Stat(path)
	b.ResetTimer()
	for range b.N {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		col, err := Collect(OTLP, []string{path})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if len(col.Sessions) != jobs || len(col.Skipped) != 0 {
			b.Fatalf("%d sessions, %d skipped", len(col.Sessions), len(col.Skipped))
		}
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(jobs*calls), "retained-B/call")
		b.ReportMetric(float64(fi.Size())/(jobs*calls), "file-B/call")
		runtime.KeepAlive(col)
	}
}
