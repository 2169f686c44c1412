package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLiteLLMImportAsProduction imports the LiteLLM sample and runs
// compare with two teams' calls as production on small.yaml's hot models:
// each stream replays exactly its team's calls on its model, counted by
// hand from the sample (PROVENANCE.md): team-search on hot-a r01, r03,
// r08 (3); team-support on hot-b r02, r06 (2); the cache hit and the
// failure not at all.
func TestLiteLLMImportAsProduction(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "prod.jsonl")
	stdout, stderr, code := runSim(t, "trace", "import", "--from", "litellm", "--scenario", "testdata/small.yaml",
		"--map", "gpt-4o-2024-08-06=hot-a", "--map", "claude-sonnet-4-5=hot-b", "--map", "gpt-4o-mini=hot-b",
		"--out", trace, "../workloads/gatewaylog/testdata/litellm/spendlogs.json")
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "imported 8 calls") {
		t.Errorf("import's last line: %s", stdout)
	}
	base, err := os.ReadFile("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sc := filepath.Join(dir, "small-prod.yaml")
	os.WriteFile(sc, append(base, []byte(`production:
  - {name: search-a, trace: prod.jsonl, format: gateway, model: hot-a, team: team-search}
  - {name: support-b, trace: prod.jsonl, format: gateway, model: hot-b, team: team-support}
`)...), 0o644)
	out := filepath.Join(dir, "out")
	if _, stderr, code := runSim(t, "compare", "--scenario", sc, "--out", out); code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	var summary struct {
		Runs []struct {
			Policy     string `json:"policy"`
			Production []struct {
				Name    string `json:"name"`
				Model   string `json:"model"`
				Arrived int    `json:"arrived"`
			} `json:"production"`
		} `json:"runs"`
	}
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &summary); err != nil {
		t.Fatal(err)
	}
	if len(summary.Runs) != 2 {
		t.Fatalf("%d runs, want 2", len(summary.Runs))
	}
	for _, run := range summary.Runs {
		got := map[string]int{}
		for _, p := range run.Production {
			got[p.Name+"/"+p.Model] = p.Arrived
		}
		if diff := cmp.Diff(map[string]int{"search-a/hot-a": 3, "support-b/hot-b": 2}, got); diff != "" {
			t.Errorf("%s: production arrivals (-want +got):\n%s", run.Policy, diff)
		}
	}

	// A stream that selects no call is refused before anything runs.
	os.WriteFile(sc, append(base, []byte("production:\n  - {name: none, trace: prod.jsonl, format: gateway, model: hot-a, team: team-nobody}\n")...), 0o644)
	if _, stderr, code := runSim(t, "compare", "--scenario", sc, "--out", filepath.Join(dir, "out2")); code != exitError || !strings.Contains(stderr, `production[0].model: `) || !strings.Contains(stderr, `has no call on hot-a of team "team-nobody"`) {
		t.Errorf("a stream with no call: exit %d: %s", code, stderr)
	}
}

// TestLiteLLMImportRefusesOverInput: --out naming the log is refused (a
// usage error, as for every importer) and the log kept; an endless --map
// file is refused.
func TestLiteLLMImportRefusesOverInput(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "rows.json")
	data, _ := os.ReadFile("../workloads/gatewaylog/testdata/litellm/spendlogs.json")
	os.WriteFile(log, data, 0o644)
	_, stderr, code := runSim(t, "trace", "import", "--from", "litellm", "--out", log, log)
	if code != exitUsage || !strings.Contains(stderr, "sim does not write over its inputs") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if now, _ := os.ReadFile(log); string(now) != string(data) {
		t.Error("the log was changed")
	}
	// An endless --map file is refused, not read forever.
	out := filepath.Join(dir, "prod.jsonl")
	_, stderr, code = runSim(t, "trace", "import", "--from", "litellm", "--map", "/dev/zero", "--out", out, log)
	if code != exitError || !strings.Contains(stderr, "/dev/zero:1: binary data") {
		t.Errorf("--map /dev/zero: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("--map /dev/zero: the trace was written")
	}
}

// TestOTLPStdoutIsUsageError: --otlp - is a bad flag value, exit 2 as the
// README's exit table says (it was 1), refused before anything runs.
func TestOTLPStdoutIsUsageError(t *testing.T) {
	for _, cmd := range []string{"run", "compare"} {
		out := filepath.Join(t.TempDir(), "o")
		_, stderr, code := runSim(t, cmd, "--scenario", "testdata/small.yaml", "--otlp", "-", "--out", out)
		if code != exitUsage || !strings.Contains(stderr, "--otlp -") {
			t.Errorf("%s --otlp -: exit %d, want %d: %s", cmd, code, exitUsage, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s --otlp -: %s written", cmd, out)
		}
	}
}
