package agentlog

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// sampleFigures are a job's totals, as read from the sample with a
// script of its own (jq/python over the raw JSON: model events' input +
// cache read + cache write, outputs, and the gaps from each call's end to
// the next call's start), not through the importer.
type sampleFigures struct {
	Calls, In, Out, CacheRead int
	ToolS                     float64 // seconds, to the ms
}

func figures(j Job) sampleFigures {
	var f sampleFigures
	var tool time.Duration
	for _, t := range j.Plan.Turns {
		for k, c := range t.Calls {
			f.Calls++
			f.In += c.In
			f.Out += c.Out
			f.CacheRead += t.Record(k).CacheRead
		}
		tool += t.Tool
	}
	f.ToolS = math.Round(tool.Seconds()*1000) / 1000
	return f
}

func importSample(t *testing.T, format Format, file string, mapping map[string]string) map[string]sampleFigures {
	t.Helper()
	col, err := Collect(format, []string{file})
	if err != nil {
		t.Fatal(err)
	}
	if len(col.Skipped) > 0 {
		t.Errorf("%s: skipped %v", file, col.Skipped)
	}
	jobs, err := col.Jobs(testCatalogue, mapping)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]sampleFigures{}
	for _, j := range jobs {
		got[j.ID] = figures(j)
	}
	return got
}

func TestSampleMETREval(t *testing.T) {
	got := importSample(t, Inspect, "testdata/metr-oxdna-small.eval", map[string]string{"anthropic/claude-opus-4-1-20250805": "m1"})
	id := func(e string) string { return "CLPhCQJvY7wQmn2ueDnBSn/oxdna_simple/default/e" + e }
	want := map[string]sampleFigures{
		id("1"): {13, 46144, 1951, 42106, 2.468},
		id("2"): {12, 41326, 1638, 36393, 5.251},
		id("3"): {12, 41282, 1561, 36365, 5.137},
		id("4"): {13, 46415, 1879, 41207, 2.847},
		id("5"): {14, 51257, 2002, 46973, 4.522},
		id("6"): {12, 41277, 1629, 36356, 3.718},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSampleInspectJSON(t *testing.T) {
	got := importSample(t, Inspect, "testdata/inspect-security-guide.json", map[string]string{"openai/gpt-4o-mini": "m1"})
	id := func(s string) string { return "f9WtbTGsrMUNXppXPbR9sq/security_guide/" + s + "/e1" }
	for _, tc := range []struct {
		id      string
		in, out int
	}{{id("1"), 320, 309}, {id("2"), 310, 256}, {id("3"), 329, 468}} {
		if g := got[tc.id]; g.Calls != 2 || g.In != tc.in || g.Out != tc.out {
			t.Errorf("%s: %+v, want 2 calls, %d in, %d out", tc.id, g, tc.in, tc.out)
		}
	}
	if len(got) != 3 {
		t.Errorf("%d jobs, want 3", len(got))
	}
}

func TestSampleTraceLab(t *testing.T) {
	got := importSample(t, TraceLab, "testdata/tracelab-round-trace.jsonl", map[string]string{"claude-opus-4-8": "m1", "gpt-5.4": "m2"})
	want := map[string]sampleFigures{
		"claude:92ee5b8a-429c-e80b-5db6-5381512f4697": {10, 418193, 9423, 394068, 92.455},
		"codex:a611041f-625d-6fad-5e59-845850dc6543":  {9, 95819, 1912, 79488, 31.076},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
