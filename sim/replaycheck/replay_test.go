package replaycheck

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var t0 = time.Date(2026, 5, 6, 7, 0, 0, 0, time.UTC)

// genCall is a call of a generated log: it starts at `at` seconds after
// t0, is served for 1 s + out/50 s (the latency the replay must fit back),
// and ends wait seconds later than that.
type genCall struct {
	at   float64
	out  int
	wait float64
}

func working(out int) float64 { return 1 + float64(out)/50 }

// writeLog writes an Inspect JSON log: a sample per entry of samples,
// starting at its first call, with the given concurrency settings.
func writeLog(t *testing.T, maxSamples, maxConnections int, samples map[string][]genCall) string {
	t.Helper()
	ts := func(s float64) string { return t0.Add(time.Duration(s * 1e9)).Format(time.RFC3339Nano) }
	var out []any
	for id, calls := range samples {
		var events []any
		for _, c := range calls {
			w := working(c.out)
			events = append(events, map[string]any{"event": "model", "model": "openai/m", "timestamp": ts(c.at), "completed": ts(c.at + w + c.wait),
				"working_time": w, "output": map[string]any{"usage": map[string]any{"input_tokens": 100, "output_tokens": c.out}}})
		}
		out = append(out, map[string]any{"id": id, "epoch": 1, "started_at": ts(calls[0].at), "events": events})
	}
	log := map[string]any{"eval": map[string]any{"eval_id": "e", "task": "t", "config": map[string]any{"max_samples": maxSamples}},
		"plan": map[string]any{"config": map[string]any{"max_connections": maxConnections}}, "samples": out}
	b, _ := json.Marshal(log)
	path := filepath.Join(t.TempDir(), "log.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReplayExact: calls served exactly as the latency model says, with
// no waits and no contention, replay to their recorded durations.
func TestReplayExact(t *testing.T) {
	path := writeLog(t, 4, 10, map[string][]genCall{
		"a": {{at: 0, out: 100}, {at: 5, out: 300}, {at: 15, out: 50}},
		"b": {{at: 1, out: 200}, {at: 7, out: 20}},
		"c": {{at: 2, out: 400}},
		"d": {{at: 3, out: 10}, {at: 6, out: 500}, {at: 30, out: 60}},
	})
	rep, err := Check([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	l := rep.Latency[0]
	if math.Abs(l.TTFT.Seconds()-1) > 1e-6 || math.Abs(l.DecodeRate-50) > 1e-3 {
		t.Errorf("latency fit ttft %v, rate %g; want 1 s, 50", l.TTFT, l.DecodeRate)
	}
	// Recorded durations, from the layout: the last call's end less the first call's start.
	want := map[string]float64{"e/t/a/e1": 15 + working(50), "e/t/b/e1": 6 + working(20), "e/t/c/e1": working(400), "e/t/d/e1": 27 + working(60)}
	for _, s := range rep.Samples {
		if math.Abs(s.Recorded-want[s.ID]) > 1e-6 || math.Abs(s.Simulated-s.Recorded) > 1e-3 {
			t.Errorf("%s: recorded %g (want %g), simulated %g", s.ID, s.Recorded, want[s.ID], s.Simulated)
		}
	}
	if rep.MdAPE > 1e-4 || rep.Correlation < 0.9999 || rep.SimulatedWait != 0 || rep.RecordedWait != 0 {
		t.Errorf("MdAPE %g, r %g, waits %g / %g; want 0, 1, 0, 0", rep.MdAPE, rep.Correlation, rep.RecordedWait, rep.SimulatedWait)
	}
}

// TestReplayContention: one connection, two samples calling at once: the
// second waits for the first, in the log and in the replay.
func TestReplayContention(t *testing.T) {
	path := writeLog(t, 2, 1, map[string][]genCall{
		"a": {{at: 0, out: 450}},                     // 10 s
		"b": {{at: 0, out: 200, wait: working(450)}}, // 5 s, after a's 10
	})
	rep, err := Check([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	if rep.InflightLimit != 1 || rep.Containers != 2 {
		t.Fatalf("limits %d in flight, %d containers; want 1, 2", rep.InflightLimit, rep.Containers)
	}
	got := map[string][2]float64{}
	for _, s := range rep.Samples {
		got[s.ID] = [2]float64{s.Simulated, s.SimulatedWait}
	}
	want := map[string][2]float64{"e/t/a/e1": {10, 0}, "e/t/b/e1": {15, 10}}
	for id, w := range want {
		if g := got[id]; math.Abs(g[0]-w[0]) > 1e-3 || math.Abs(g[1]-w[1]) > 1e-3 {
			t.Errorf("%s: simulated %g s, waited %g s; want %g, %g", id, g[0], g[1], w[0], w[1])
		}
	}
	if math.Abs(rep.RecordedWait-10) > 1e-6 || rep.MdAPE > 1e-4 {
		t.Errorf("recorded wait %g (want 10), MdAPE %g", rep.RecordedWait, rep.MdAPE)
	}
}

// TestMETRSample: the shipped .eval runs; its recorded durations are the
// samples' own (last call's end less the start, total_time before the
// last event), and its recorded wait is what the calls' timestamps say.
func TestMETRSample(t *testing.T) {
	rep, err := Check([]string{"../../workloads/agentlog/testdata/metr-oxdna-small.eval"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Samples) != 6 || rep.Containers != 20 || rep.InflightLimit != 10 {
		t.Fatalf("%d samples, %d containers, %d in flight; want 6, 20, 10", len(rep.Samples), rep.Containers, rep.InflightLimit)
	}
	// Σ over the 76 model events of (completed − timestamp − working_time),
	// computed from the raw JSON apart from the importer.
	if math.Abs(rep.RecordedWait-687.2) > 0.1 {
		t.Errorf("recorded wait %.2f s, want 687.2", rep.RecordedWait)
	}
	for _, s := range rep.Samples {
		if !(s.Simulated > 0) || !(s.Recorded > 0) {
			t.Errorf("%+v", s)
		}
	}
}
