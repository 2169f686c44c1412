package cli

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
)

// A rollout file for the broken-input set: its lines, each with the class
// of its value, which says which values are wrong for it. Lines are
// block-style "key: value" so a mutation edits one line and the error's
// line is known.
type tline struct {
	text  string // the whole line, "  key: value"
	class string // "" (not mutated), or a key of wrongValues
	req   bool   // required: deleting the line must be refused
}

// wrongValues are values refused for a class, whatever the rest of the
// file: each is a separate case.
var wrongValues = map[string][]string{
	"scenario":  {"nosuch-scenario", "./nosuch.yaml", "[light-load]", "{a: b}", "''"},
	"policy":    {"nosuch-policy", "[scheduler]", "{a: b}", "fixed_lane"},
	"variant":   {"nosuch-variant", "[a]"},
	"metric":    {"throughput", "Jain", "[jain]", "''", "multiplierr"},
	"lane":      {"nosuch-lane", "[\"(all)\"]", "ALL", "''"},
	"lanes":     {"[nosuch-lane]", "[\"(all)\", \"(all)\"]", "nosuch", "[[a]]", "{a: b}"},
	"metrics":   {"[nosuch]", "[jain, jain]", "jain", "[[a]]"},
	"goal":      {"minimise", "maximize", "MAX", "''", "[max]", "1"},
	"nonneg":    {"-1", "-0.5", ".nan", ".inf", "-.inf", "x", "[0.1]", "{a: 1}", "1e400"},
	"finite":    {".nan", ".inf", "-.inf", "x", "[0]", "1e400"},
	"seedlist":  {"[]", "[1, 1]", "[-1]", "[x]", "1", "{a: 1}", "[.nan]", "[1.5]", "[18446744073709551616]"},
	"seedn":     {"0", "-1", "1001", "1.5", ".nan", "x", "[2]", "99999999999999999999"},
	"firstseed": {"-1", "x", "18446744073709551615", "1.5"},
	"budget":    {"-1", "0", "-100", "10001", "x", "1.5", ".nan"},
	"key":       {"policies.scheduler.nosuch", "nosuch", "organisations.nosuch.tpm", "models[0].streams", "''", "[a]"},
	"name":      {"''", "[a]", "{a: b}"},
	"mapping":   {"[1]", "x", "5"},
	"overlay":   {"[1]", "x", "{duration: -5m}", "{nosuch: 1}", "{duration: [1h]}", "{policies: {scheduler: {target_depth: .nan}}}", "{containers: {capacity: 9.5}}"},
	"bool":      {"maybe", "[true]", "2"},
	"gridvals":  {"[]", "[4, 4]", "x", "[[4]]", "[{a: 1}]", "[.nan]", "[-5]"},
	"baseline":  {"''", "[a]"},
}

var gateLines = []tline{
	{"baseline: baselines/b.json", "baseline", true},
	{"scenarios:", "", true},
	{"  - name: small", "name", true},
	{"    scenario: light-load", "scenario", true},
	{"    policy: scheduler", "policy", false},
	{"    overlay: {duration: 20m, warmup: 5m, events: []}", "overlay", false},
	{"    seeds: [1, 2]", "seedlist", true},
	{"checks:", "", true},
	{"  - metric: throughput_per_hour", "metric", true},
	{"    lanes: [\"(all)\"]", "lanes", false},
	{"    scenarios: [small]", "lanes", false},
	{"    floor:", "", true},
	{"      relative: 0.05", "nonneg", false},
	{"      k_se: 3", "nonneg", false},
	{"      paired: 0.02", "nonneg", false},
	{"  - metric: outage_minutes", "metric", true},
	{"    ceiling:", "", true},
	{"      threshold: 0", "finite", false},
}

var sweepLines = []tline{
	{"scenario: light-load", "scenario", true},
	{"policy: scheduler", "policy", false},
	{"baseline: true", "bool", false},
	{"overlay: {duration: 20m, warmup: 5m, events: []}", "overlay", false},
	{"seeds: 2", "seedn", true},
	{"first_seed: 3", "firstseed", false},
	{"grid:", "", false},
	{"  policies.scheduler.target_depth: [4, 16]", "gridvals", false},
	{"points:", "", false},
	{"  - name: deep", "name", false},
	{"    overlay: {policies: {scheduler: {target_depth: 64}}}", "overlay", false},
	{"lanes: [\"(all)\"]", "lanes", false},
	{"metrics: [throughput_per_hour, jain]", "metrics", false},
}

var tuneLines = []tline{
	{"scenario: light-load", "scenario", true},
	{"policy: scheduler", "policy", false},
	{"overlay: {duration: 20m, warmup: 5m, events: []}", "overlay", false},
	{"seeds: 1", "seedn", true},
	{"params:", "", true},
	{"  - key: policies.scheduler.target_depth", "key", true},
	{"    min: 2", "finite", false},
	{"    max: 64", "finite", false},
	{"    integer: true", "bool", false},
	{"objective:", "", true},
	{"  metric: throughput_per_hour", "metric", true},
	{"  lane: \"(all)\"", "lane", false},
	{"  goal: max", "goal", true},
	{"constraints:", "", false},
	{"  - metric: p90_container_wait_share", "metric", false}, // measured on every run (jain is not on a short run: no constraint meets it)
	{"    max: 1", "finite", false},
	{"trade_off:", "", false},
	{"  metric: p90_job_time_s", "metric", false},
	{"  goal: min", "goal", false},
	{"budget: 3", "budget", false},
}

// brokenFile is one generated case: the file's bytes and the line the
// error must name (0: any, or none).
type brokenFile struct {
	name string
	data []byte
	line int
}

func render(lines []tline) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.text + "\n")
	}
	return b.String()
}

var keyOf = regexp.MustCompile(`^(\s*(?:- )?)([A-Za-z_.][A-Za-z0-9_.-]*):(.*)$`)

// brokenFiles generates the cases of one file kind: every wrong value of
// every line's class, every key misspelt, every required line dropped, a
// key given twice, and whole-file faults (empty, comments only, two
// documents, UTF-16, gzip, binary, too big, not a mapping, bad YAML).
func brokenFiles(lines []tline) []brokenFile {
	var out []brokenFile
	for i, l := range lines {
		m := keyOf.FindStringSubmatch(l.text)
		for _, v := range wrongValues[l.class] {
			edited := append([]tline(nil), lines...)
			edited[i].text = m[1] + m[2] + ": " + v
			out = append(out, brokenFile{fmt.Sprintf("line %d %s=%s", i+1, m[2], v), []byte(render(edited)), 0})
		}
		if m != nil {
			edited := append([]tline(nil), lines...)
			edited[i].text = m[1] + m[2] + "x:" + m[3]
			out = append(out, brokenFile{fmt.Sprintf("line %d misspelt %s", i+1, m[2]), []byte(render(edited)), i + 1})
			if !strings.Contains(m[1], "-") {
				dup := append(append(append([]tline(nil), lines[:i+1]...), tline{text: l.text}), lines[i+1:]...)
				if strings.TrimSpace(m[3]) != "" {
					out = append(out, brokenFile{fmt.Sprintf("line %d %s twice", i+1, m[2]), []byte(render(dup)), i + 2})
				}
			}
		}
		if l.req && m != nil && !strings.Contains(m[1], "-") {
			edited := append(append([]tline(nil), lines[:i]...), lines[i+1:]...)
			if strings.TrimSpace(m[3]) == "" { // a section: drop its body too
				j := i + 1
				for j < len(lines) && strings.HasPrefix(lines[j].text, " ") {
					j++
				}
				edited = append(append([]tline(nil), lines[:i]...), lines[j:]...)
			}
			out = append(out, brokenFile{fmt.Sprintf("line %d %s dropped", i+1, m[2]), []byte(render(edited)), 0})
		}
	}
	good := render(lines)
	var u16 []byte
	for _, u := range utf16.Encode([]rune(good)) {
		u16 = append(u16, byte(u), byte(u>>8))
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(good))
	zw.Close()
	out = append(out,
		brokenFile{"empty", nil, 0},
		brokenFile{"blank", []byte("\n\n   \n"), 0},
		brokenFile{"comments only", []byte("# nothing\n# here\n"), 0},
		brokenFile{"null document", []byte("~\n"), 0},
		brokenFile{"second document", []byte(good + "---\n" + good), len(lines) + 1},
		brokenFile{"utf-16 with mark", append([]byte{0xff, 0xfe}, u16...), 0},
		brokenFile{"utf-16 without mark", u16, 0},
		brokenFile{"gzip", gz.Bytes(), 0},
		brokenFile{"binary", []byte("\x00\x01\x02scenario"), 0},
		brokenFile{"latin-1", []byte(strings.Replace(good, "scenario:", "sc\xe9nario:", 1)), 0},
		brokenFile{"too big", []byte(good + "# " + strings.Repeat("x", 1<<20) + "\n"), 0},
		brokenFile{"a list", []byte("- a\n- b\n"), 1},
		brokenFile{"a scalar", []byte("just text\n"), 1},
		brokenFile{"bad indentation", []byte(strings.Replace(good, "\n", "\n\t", 3)), 0},
		brokenFile{"unclosed flow", []byte(strings.Replace(good, "}", "", 1)), 0},
		brokenFile{"alias", []byte("x: &a [1]\n" + good + "y: *a\n"), 0},
		brokenFile{"unknown top key", []byte(good + "bogus: 1\n"), len(lines) + 1},
	)
	return out
}

// treeOf is every file under dir with its content ("" for a directory).
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			files[rel+"/"] = ""
			return nil
		}
		data, _ := os.ReadFile(p)
		files[rel] = string(data)
		return nil
	})
	return files
}

// plantOut makes an --out directory holding a previous output of sim
// (the marker and a file of each command), to see nothing replaced it.
func plantOut(t *testing.T, dir string) map[string]string {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	for _, f := range []string{".sim-output", "verdict.json", "sweep.csv", "tune.csv"} {
		os.WriteFile(filepath.Join(dir, f), []byte("previous "+f+"\n"), 0o644)
	}
	return treeOf(t, filepath.Dir(dir))
}

// TestBrokenRolloutFiles is the broken-input set of the rollout files:
// every generated case of a gate, sweep and tune file (several hundred)
// exits non-zero without a panic, names the file (and its line where the
// fault is on one), and leaves --out and its parent as they were — but
// for the gate's verdict, which says "no verdict" and why.
func TestBrokenRolloutFiles(t *testing.T) {
	kinds := []struct {
		cmd   string
		lines []tline
	}{{"gate", gateLines}, {"sweep", sweepLines}, {"tune", tuneLines}}
	// The good files themselves are accepted (so each case fails by its
	// fault): the gate with exit 5 (no baseline yet), sweep and tune 0.
	for _, k := range kinds {
		dir := t.TempDir()
		f := filepath.Join(dir, "good.yaml")
		os.WriteFile(f, []byte(render(k.lines)), 0o644)
		want := 0
		if k.cmd == "gate" {
			want = exitStale
		}
		if _, stderr, code := runSim(t, k.cmd, "--out", filepath.Join(dir, "out"), f); code != want {
			t.Fatalf("the good %s file: exit %d, want %d: %s", k.cmd, code, want, stderr)
		}
	}
	total := 0
	var mu sync.Mutex
	for _, k := range kinds {
		cases := brokenFiles(k.lines)
		total += len(cases)
		t.Run(k.cmd, func(t *testing.T) {
			for i, tc := range cases {
				t.Run(fmt.Sprintf("%03d %s", i, tc.name), func(t *testing.T) {
					t.Parallel()
					dir := t.TempDir()
					f := filepath.Join(dir, k.cmd+".yaml")
					os.WriteFile(f, tc.data, 0o644)
					out := filepath.Join(dir, "parent", "out")
					before := plantOut(t, out)
					_, stderr, code := runSimHere(t, k.cmd, "--out", out, f)
					checkBroken(t, code, stderr, f, tc.line)
					after := treeOf(t, filepath.Dir(out))
					if k.cmd == "gate" {
						// A gate that cannot judge puts "no verdict" and
						// why in place of the verdict before it: nothing
						// else of --out changes hands.
						var v struct{ Outcome, Reason string }
						json.Unmarshal([]byte(after["out/verdict.json"]), &v)
						if v.Outcome != "no verdict" || !strings.HasPrefix("sim: "+v.Reason, firstLine(stderr)) {
							t.Errorf("verdict.json is not \"no verdict\" with the error: %s", after["out/verdict.json"])
						}
						delete(before, "out/sweep.csv")
						delete(before, "out/tune.csv")
						before["out/.sim-output"], before["out/verdict.json"] = "", after["out/verdict.json"]
					}
					if diff := cmp.Diff(before, after); diff != "" {
						t.Errorf("--out or beside it changed (-before +after):\n%s", diff)
					}
					mu.Lock()
					defer mu.Unlock()
				})
			}
		})
	}
	if total < 300 {
		t.Errorf("%d broken rollout files: the set should be several hundred", total)
	}
	t.Logf("%d broken rollout files", total)
}

// checkBroken: a refusal (exit 1, or 2 for flags), no panic, the first
// line names the file (at its line when one is known).
func checkBroken(t *testing.T, code int, stderr, file string, line int) {
	t.Helper()
	if code == 0 || code > exitBusy {
		t.Errorf("exit %d; stderr:\n%s", code, stderr)
	}
	if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") {
		t.Fatalf("panicked:\n%s", stderr)
	}
	first := firstLine(stderr)
	want := "sim: " + file
	if line > 0 {
		want = fmt.Sprintf("sim: %s:%d:", file, line)
	}
	if !strings.HasPrefix(first, want) {
		t.Errorf("error does not name %q:\n%s", strings.TrimPrefix(want, "sim: "), first)
	}
}
