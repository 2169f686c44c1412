package agentlog

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// The fuzz targets feed each reader arbitrary bytes: it must not panic,
// and whatever sessions it finds must make valid plans.

func fuzzSink(t *testing.T) Sink {
	return Sink{
		Session: func(s *Session) {
			p, _ := s.Plan()
			if len(s.Calls) > 0 {
				if err := p.Validate("plan"); err != nil {
					t.Errorf("session %s: %v", s.ID, err)
				}
			}
		},
		Skip: func(*Problem) {},
	}
}

func seedCorpus(f *testing.F, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
}

func FuzzInspectJSON(f *testing.F) {
	h := inspectHeaderJSON("t", "e", "m")
	h["samples"] = []any{inspectSampleJSON(jobA, "A", inspectStyle{}, inspectExtra{failedCall: true}), inspectSampleJSON(jobB, 2, inspectStyle{old: true}, inspectExtra{})}
	b, _ := json.Marshal(h)
	seedCorpus(f, b, []byte(`{"samples":[{"id":1,"events":[{"event":"model"}]}]}`), []byte(`{`))
	if s, err := os.ReadFile("testdata/inspect-security-guide.json"); err == nil {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = readInspectJSON(bytes.NewReader(data), "fuzz.json", fuzzSink(t))
	})
}

func FuzzInspectEval(f *testing.F) {
	// A small generated zip (the shipped sample is 600 kB: slow to mutate).
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for name, v := range map[string]any{"header.json": inspectHeaderJSON("t", "e", "m"), "samples/a.json": inspectSampleJSON(jobA, "A", inspectStyle{}, inspectExtra{})} {
		w, _ := z.Create(name)
		b, _ := json.Marshal(v)
		w.Write(b)
	}
	w, _ := z.Create("samples/bad.json")
	w.Write([]byte(`{"id":`))
	z.Close()
	f.Add(buf.Bytes())
	f.Add([]byte("PK\x05\x06" + string(make([]byte, 18))))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = readInspectZipFrom(bytes.NewReader(data), int64(len(data)), "fuzz.eval", fuzzSink(t))
	})
}

func FuzzOTLP(f *testing.F) {
	b, _ := json.Marshal(otlpRequest(append(otlpSpans(jobA, 1, otlpStyle{group: "agent"}), otlpSpans(jobB, 2, otlpStyle{group: "conv", old: true, base64: true})...)))
	seedCorpus(f, b, []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"x"}]}]}]}`), []byte("{}\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// A small sort budget: the spans spill to runs that are merged.
		r := newOTLPReader(t.TempDir(), 2048)
		defer r.close()
		sink := fuzzSink(t)
		if r.read(bytes.NewReader(data), "fuzz.json", Sink{Skip: r.skip}) == nil && r.err == nil {
			if err := r.flush(sink); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func FuzzTraceLab(f *testing.F) {
	var b bytes.Buffer
	for _, l := range append(traceLabLines(jobC, false), traceLabLines(jobD, true)...) {
		b.WriteString(l + "\n")
	}
	seedCorpus(f, b.Bytes(), []byte(`{"session_id":"s","round_index":0}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sessions := map[string]*traceLabSession{}
		sink := fuzzSink(t)
		var records int
		_ = readTraceLab(bytes.NewReader(data), "fuzz.jsonl", false, &records, sink, func(id string) *traceLabSession {
			if sessions[id] == nil {
				sessions[id] = &traceLabSession{sess: &Session{ID: id}, rounds: map[int]string{}}
			}
			return sessions[id]
		})
		for _, s := range sessions {
			if len(s.sess.Calls) > 0 {
				sink.Session(s.sess)
			}
		}
	})
}
