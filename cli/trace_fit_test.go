package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// spliceBehaviour writes a copy of the scenario with the behaviour YAML
// added as workload.behaviours.NAME and a behaviour_mix drawing it only.
func spliceBehaviour(t *testing.T, scenario, behaviour, name, out string) {
	t.Helper()
	var sc, bh yaml.Node
	for _, f := range []struct {
		path string
		node *yaml.Node
	}{{scenario, &sc}, {behaviour, &bh}} {
		data, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(data, f.node); err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
	}
	child := func(m *yaml.Node, key string) *yaml.Node {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				return m.Content[i+1]
			}
		}
		t.Fatalf("no %s in %s", key, scenario)
		return nil
	}
	wl := child(sc.Content[0], "workload")
	bs := child(wl, "behaviours")
	bs.Content = append(bs.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: name}, bh.Content[0])
	var mix yaml.Node
	if err := yaml.Unmarshal([]byte("{"+name+": 1}"), &mix); err != nil {
		t.Fatal(err)
	}
	wl.Content = append(wl.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "behaviour_mix"}, mix.Content[0])
	data, err := yaml.Marshal(&sc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTraceFitLoadsAndRuns: a behaviour fitted to an imported sample
// loads in a scenario, which then runs; so does the embedded preset.
func TestTraceFitLoadsAndRuns(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "oxdna.jsonl")
	if out, stderr, code := runSim(t, "trace", "import", "--from", "inspect", "--scenario", traceScenario,
		"--map", "anthropic/claude-opus-4-1-20250805=hot-a", "--out", trace, "../workloads/agentlog/testdata/metr-oxdna-small.eval"); code != 0 {
		t.Fatalf("import: exit %d: %s%s", code, out, stderr)
	}
	fitted, figs := filepath.Join(dir, "behaviour.yaml"), filepath.Join(dir, "figs")
	out, stderr, code := runSim(t, "trace", "fit", "--scenario", traceScenario, "--figures", figs, "--out", fitted, trace)
	if code != 0 || !strings.Contains(out, "fitted a behaviour to 6 plan jobs (76 turns, 76 calls)") {
		t.Fatalf("fit: exit %d: %s%s", code, out, stderr)
	}
	for _, name := range []string{"turns", "fanout", "prompt_tokens", "output_tokens", "tool_tokens", "tool_seconds"} {
		b, err := os.ReadFile(filepath.Join(figs, name+".png"))
		if err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
			t.Errorf("figure %s: %v", name, err)
		}
	}
	preset := filepath.Join(dir, "copilot.yaml")
	if out, stderr, code := runSim(t, "trace", "fit", "--preset", "copilot-coding-agent", "--out", preset); code != 0 {
		t.Fatalf("preset: exit %d: %s%s", code, out, stderr)
	}
	for _, b := range []struct{ name, file string }{{"fitted", fitted}, {"copilot", preset}} {
		t.Run(b.name, func(t *testing.T) {
			sc := filepath.Join(dir, b.name+"-scenario.yaml")
			spliceBehaviour(t, traceScenario, b.file, b.name, sc)
			gen := filepath.Join(dir, b.name+"-gen.jsonl")
			if out, stderr, code := runSim(t, "trace", "gen", "--scenario", sc, "--out", gen); code != 0 {
				t.Fatalf("trace gen with the behaviour: exit %d: %s%s", code, out, stderr)
			}
			if data, _ := os.ReadFile(gen); !strings.Contains(string(data), `"class":"`+b.name+`"`) {
				t.Errorf("no job of class %s generated", b.name)
			}
			res := filepath.Join(dir, b.name+"-run")
			if out, stderr, code := runSim(t, "run", "--scenario", sc, "--out", res); code != 0 {
				t.Fatalf("run with the behaviour: exit %d: %s%s", code, out, stderr)
			}
		})
	}
	if _, stderr, code := runSim(t, "trace", "fit", "--preset", "nope", "--out", preset); code != exitUsage || !strings.Contains(stderr, "copilot-coding-agent") {
		t.Errorf("unknown preset: exit %d, %s", code, stderr)
	}
}
