package predict

import (
	"container/heap"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A synthetic inspect run, simulated here by a small event loop of its
// own (not the lab's): samples admitted FIFO under maxSamples, each turn's
// calls taking one of maxConnections connections FIFO, the provider's time
// (a + c·out)·(1 + β·calls at the provider)·variation, a client overhead
// while the connection is held, tool time between turns. It writes the
// log inspect_ai 0.3.133 would: sample_init at admission, each model
// event's timestamp (generate() called), completed and working_time.
type synth struct {
	samples, maxSamples, maxConn int
	beta                         float64
	seed                         uint64
}

type synthEvent struct {
	t    float64
	kind int // 0 sample admitted, 1 call wants a connection, 2 call done, 3 tool done
	s, c int
	seq  int
}

type synthQueue []synthEvent

func (q synthQueue) Len() int { return len(q) }
func (q synthQueue) Less(i, j int) bool {
	if q[i].t != q[j].t {
		return q[i].t < q[j].t
	}
	return q[i].seq < q[j].seq
}
func (q synthQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *synthQueue) Push(x any)   { *q = append(*q, x.(synthEvent)) }
func (q *synthQueue) Pop() any     { o := *q; x := o[len(o)-1]; *q = o[:len(o)-1]; return x }

func (g synth) write(t *testing.T) string {
	rng := rand.New(rand.NewPCG(g.seed, 1))
	type call struct {
		out                int
		issue, start, done float64
		work               float64
	}
	type sample struct {
		turns   []int // output tokens, one call a turn
		tools   []float64
		calls   []call
		init    float64
		end     float64
		current int
	}
	ss := make([]*sample, g.samples)
	for i := range ss {
		s := &sample{}
		for range 1 + rng.IntN(4) {
			s.turns = append(s.turns, 20+rng.IntN(600))
			s.tools = append(s.tools, 0.2+2*rng.Float64())
		}
		ss[i] = s
	}
	var q synthQueue
	seq := 0
	push := func(e synthEvent) { seq++; e.seq = seq; heap.Push(&q, e) }
	running, nextSample := 0, 0
	inflight, held := 0, 0
	var connWait []int // samples waiting for a connection, FIFO
	admit := func(now float64) {
		for running < g.maxSamples && nextSample < len(ss) {
			s := ss[nextSample]
			s.init = now + 0.01 // the harness's handoff
			push(synthEvent{t: s.init + 0.05, kind: 1, s: nextSample})
			nextSample++
			running++
		}
	}
	startCall := func(now float64, si int) {
		s := ss[si]
		held++
		inflight++
		out := s.turns[s.current]
		work := (0.4 + float64(out)/80) * (1 + g.beta*float64(inflight)) * math.Exp(0.25*rng.NormFloat64()-0.25*0.25/2)
		c := &s.calls[len(s.calls)-1]
		c.start, c.work = now, work
		push(synthEvent{t: now + 0.03 + work, kind: 2, s: si}) // 30 ms client overhead
	}
	admit(0)
	for q.Len() > 0 {
		e := heap.Pop(&q).(synthEvent)
		s := ss[e.s]
		switch e.kind {
		case 1:
			s.calls = append(s.calls, call{out: s.turns[s.current], issue: e.t})
			if held < g.maxConn {
				startCall(e.t, e.s)
			} else {
				connWait = append(connWait, e.s)
			}
		case 2:
			held--
			inflight--
			s.calls[len(s.calls)-1].done = e.t
			push(synthEvent{t: e.t + s.tools[s.current], kind: 3, s: e.s})
			if len(connWait) > 0 {
				next := connWait[0]
				connWait = connWait[1:]
				startCall(e.t, next)
			}
		case 3:
			s.current++
			if s.current < len(s.turns) {
				push(synthEvent{t: e.t, kind: 1, s: e.s})
				continue
			}
			s.end = e.t
			running--
			admit(e.t)
		}
	}
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ts := func(x float64) string { return t0.Add(time.Duration(x * 1e9)).Format(time.RFC3339Nano) }
	var samples []any
	var ids []any
	for i, s := range ss {
		ids = append(ids, i+1)
		events := []any{map[string]any{"event": "sample_init", "timestamp": ts(s.init)}}
		for _, c := range s.calls {
			events = append(events, map[string]any{"event": "model", "model": "vllm/local", "timestamp": ts(c.issue), "completed": ts(c.done),
				"working_time": c.work, "output": map[string]any{"time": c.work, "usage": map[string]any{"input_tokens": 200, "output_tokens": c.out}}})
		}
		events = append(events, map[string]any{"event": "score", "timestamp": ts(s.end)})
		samples = append(samples, map[string]any{"id": i + 1, "epoch": 1, "events": events})
	}
	log := map[string]any{
		"status": "success",
		"eval": map[string]any{"eval_id": fmt.Sprint("e", g.seed), "run_id": fmt.Sprint("r", g.seed), "task": "synthetic", "model": "vllm/local", "created": ts(0),
			"packages": map[string]any{"inspect_ai": "0.3.133"}, "config": map[string]any{"max_samples": g.maxSamples}, "dataset": map[string]any{"sample_ids": ids}},
		"plan":    map[string]any{"config": map[string]any{"max_connections": g.maxConn}},
		"stats":   map[string]any{"started_at": ts(0)},
		"samples": samples,
	}
	b, _ := json.Marshal(log)
	path := filepath.Join(t.TempDir(), fmt.Sprintf("synthetic-%d.json", g.seed))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSyntheticRuns: runs simulated independently of the lab — agentic
// samples of one to four turns with tools between, pools of 4, 16 and 32
// connections, a self-hosted model whose latency grows with the calls it
// serves — are predicted within 10% of their makespan, and the load slope
// is found where there is one.
func TestSyntheticRuns(t *testing.T) {
	for _, g := range []synth{
		{samples: 120, maxSamples: 16, maxConn: 16, seed: 1},
		{samples: 200, maxSamples: 32, maxConn: 32, seed: 2},
		{samples: 80, maxSamples: 12, maxConn: 4, seed: 3},              // more samples than connections: calls wait
		{samples: 150, maxSamples: 16, maxConn: 16, beta: 0.1, seed: 4}, // self-hosted: latency grows with load
		{samples: 150, maxSamples: 32, maxConn: 32, beta: 0.05, seed: 5},
	} {
		t.Run(fmt.Sprintf("conn%d-beta%g", g.maxConn, g.beta), func(t *testing.T) {
			path := g.write(t)
			rep, err := Check([]string{path}, Options{Seeds: 10})
			if err != nil {
				t.Fatal(err)
			}
			r := rep.Runs[0]
			m := r.Figures.Makespan
			t.Logf("makespan recorded %.1f predicted %.1f [%.1f, %.1f]; form %s β %g; waiting rec %v pred %.2f",
				*m.Recorded, m.Predicted, m.Interval[0], m.Interval[1], r.Fits[0].Form, r.Fits[0].Load, *r.Figures.WaitingMean.Recorded, r.Figures.WaitingMean.Predicted)
			if math.Abs(*m.Error) > 0.10 {
				t.Errorf("makespan error %+.1f%%, want within 10%%", 100**m.Error)
			}
			if g.beta > 0 && r.Fits[0].Load == 0 {
				t.Errorf("latency grows with load (β %g) but the fit found no slope", g.beta)
			}
		})
	}
}

// TestCancelledRunReplaysWhatItRan: a log that was cancelled (status
// cancelled, its last samples never called the model) replays the samples
// it ran, reports its status, and says which samples it skipped.
func TestCancelledRunReplaysWhatItRan(t *testing.T) {
	path := synth{samples: 30, maxSamples: 8, maxConn: 8, seed: 9}.write(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var log map[string]any
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatal(err)
	}
	log["status"] = "cancelled"
	samples := log["samples"].([]any)
	for _, s := range samples[25:] { // cut before their first call
		sm := s.(map[string]any)
		sm["events"] = sm["events"].([]any)[:1]
	}
	b, _ = json.Marshal(log)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Check([]string{path}, Options{Seeds: 3})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Runs[0]
	if r.Samples != 25 || r.Status[0] != "cancelled" || len(rep.Skipped) != 5 {
		t.Errorf("samples %d status %v skipped %d, want 25 samples replayed, cancelled, 5 skipped", r.Samples, r.Status, len(rep.Skipped))
	}
}

// TestOneRunFailsOthersPredicted: a run that cannot be predicted (its calls
// record no provider time) is skipped with the reason; the other run is
// still predicted.
func TestOneRunFailsOthersPredicted(t *testing.T) {
	good := synth{samples: 20, maxSamples: 8, maxConn: 8, seed: 11}.write(t)
	bad := synth{samples: 20, maxSamples: 8, maxConn: 8, seed: 12}.write(t)
	b, _ := os.ReadFile(bad)
	var log map[string]any
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatal(err)
	}
	for _, s := range log["samples"].([]any) {
		for _, e := range s.(map[string]any)["events"].([]any) {
			ev := e.(map[string]any)
			if ev["event"] == "model" {
				delete(ev, "working_time")
				delete(ev["output"].(map[string]any), "time")
			}
		}
	}
	b, _ = json.Marshal(log)
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Check([]string{good, bad}, Options{Seeds: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || len(rep.Skipped) != 1 || !strings.Contains(rep.Skipped[0], "no call records the provider's time") {
		t.Errorf("%d runs, skipped %q: want the good run predicted and the other skipped with the reason", len(rep.Runs), rep.Skipped)
	}
}
