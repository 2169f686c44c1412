package cli

import (
	"os"
	"path/filepath"
	"testing"
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
