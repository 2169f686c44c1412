package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReplayCheckRefusals: replay-check's refusals name the file or flag,
// exit non-zero and write no --json.
func TestReplayCheckRefusals(t *testing.T) {
	wd, _ := os.Getwd()
	withLogs := func(t *testing.T, dir string) {
		copyIn(t, dir, "run.eval", filepath.Join(wd, replayLog))
		copyIn(t, dir, "copy.eval", filepath.Join(wd, replayLog))
	}
	runFaults(t, []fault{
		{name: "--folds 1", setup: withLogs, args: []string{"trace", "replay-check", "--folds", "1", "--json", "r.json", "run.eval"},
			code: exitUsage, want: "--folds: want at least 2 (a fit without each sample's own calls), got 1", gone: []string{"r.json"}},
		{name: "an unknown --policy", setup: withLogs, args: []string{"trace", "replay-check", "--policy", "bogus", "--json", "r.json", "run.eval"},
			code: exitUsage, want: "--policy: unknown \"bogus\"", gone: []string{"r.json"}},
		{name: "--folds 0", setup: withLogs, args: []string{"trace", "replay-check", "--folds", "0", "--json", "r.json", "run.eval"},
			code: exitUsage, want: "--folds: want at least 2", gone: []string{"r.json"}},
		{name: "a log twice", setup: withLogs, args: []string{"trace", "replay-check", "--json", "r.json", "run.eval", "run.eval"},
			code: exitError, want: "run.eval is given twice: it holds the same 100 sample(s)", gone: []string{"r.json"}},
		{name: "two copies", setup: withLogs, args: []string{"trace", "replay-check", "--json", "r.json", "run.eval", "copy.eval"},
			code: exitError, want: "run.eval and copy.eval both hold the same 100 sample(s)", gone: []string{"r.json"}},
		{name: "--fit-from a copy", setup: withLogs, args: []string{"trace", "replay-check", "--json", "r.json", "--fit-from", "copy.eval", "run.eval"},
			code: exitError, want: "--fit-from copy.eval is of run R3Bzph5WXJNKvpCg3uFmd3, as is run.eval, a log being predicted", gone: []string{"r.json"}},
		{name: "a TraceLab round trace", args: []string{"trace", "replay-check", "--json", "r.json", tracelabSample},
			code: exitError, want: "tracelab-round-trace.jsonl:1: not an Inspect log: its JSON object has neither eval nor samples (its keys: provider, project, session_id, round_index, round_id, model, …), and more JSON values follow it (JSON Lines?)", gone: []string{"r.json"}},
	})
}

// TestReplayCheckSummaryEveryFigure: the terminal summary over runs has a
// line for each of the nine figures of docs/reference/replay-check.md,
// "not rec." for those no run records (the 0.3.58 logs record no
// waiting; no log records 429s).
func TestReplayCheckSummaryEveryFigure(t *testing.T) {
	const dir = "../predict/testdata/realruns/"
	stdout, stderr, code := runSim(t, "trace", "replay-check", "--seeds", "2",
		dir+"2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval", dir+"2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, summary, ok := strings.Cut(stdout, "over 2 runs")
	if !ok {
		t.Fatalf("no summary over 2 runs:\n%s", stdout)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(summary), "\n")[1:] {
		f := strings.Fields(l)
		state := "scored"
		if strings.Contains(l, "not rec.") {
			state = "not rec."
		}
		got = append(got, f[0]+" "+state)
	}
	want := []string{"makespan_s scored", "in_flight_mean scored", "in_flight_max scored", "waiting_mean not rec.",
		"sample_duration_p50_s scored", "sample_duration_p90_s scored", "call_latency_p50_s scored", "call_latency_p90_s scored", "throttled_429s not rec."}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("summary lines (-want +got):\n%s", d)
	}
}

// TestReplayCheckErrorNotRecorded: a figure the log does not record has
// its error printed "not rec." (the 0.3.58 log records no waiting, no log
// records 429s), never a number or "n/a".
func TestReplayCheckErrorNotRecorded(t *testing.T) {
	stdout, stderr, code := runSim(t, "trace", "replay-check", "--seeds", "2", "../predict/testdata/realruns/2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got []string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "  waiting mean") || strings.HasPrefix(l, "  429s") {
			f := strings.Fields(l)
			got = append(got, strings.Join(f[len(f)-2:], " "))
		}
	}
	if d := cmp.Diff([]string{"not rec.", "not rec."}, got); d != "" {
		t.Errorf("error column of waiting mean and 429s (-want +got):\n%s", d)
	}
}
