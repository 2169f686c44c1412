package sim

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/workloads"
)

// TestTraceRoundTrip: generate → write a trace → replay it gives the same
// summary, byte for byte, as the run that generated it, in both formats.
func TestTraceRoundTrip(t *testing.T) {
	sc := smallScenario(t, nil)
	const seed = 21
	want := summaryJSON(t, sc, seed)
	for _, format := range []string{"jsonl", "csv"} {
		t.Run(format, func(t *testing.T) {
			gen, err := workloads.NewGenerator(sc.Workload, sc.Catalogue(), sc.Duration, seed)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			n, err := workloads.WriteTrace(&buf, format, gen, sc.Catalogue(), workloads.ClassNames(gen.Classes()))
			if err != nil {
				t.Fatal(err)
			}
			if n < 1000 {
				t.Fatalf("only %d jobs in the trace", n)
			}
			var runs []results.Run
			for _, p := range PolicyNames {
				r := workloads.NewTraceReader(bytes.NewReader(buf.Bytes()), "trace."+format, format, sc.Catalogue(), gen.Classes(), workloads.TraceOptions{})
				w, err := Execute(sc, RunSpec{Policy: p, Seed: seed, Source: r})
				if err != nil {
					t.Fatal(err)
				}
				runs = append(runs, results.Summarize(w.Measured()))
			}
			got, err := json.Marshal(results.Summary{Scenario: sc.Name, Seed: seed, Runs: runs})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, got) {
				t.Fatalf("replayed %s trace gives a different summary (%d vs %d bytes)", format, len(got), len(want))
			}
		})
	}
}
