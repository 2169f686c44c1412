package cli

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// copyTree copies the files of src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	for rel, data := range treeOf(t, src) {
		p := filepath.Join(dst, rel)
		if strings.HasSuffix(rel, "/") {
			os.MkdirAll(p, 0o755)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// corruption is one fault put into a copy of a good directory: file (in
// it) replaced by edit of its content.
type corruption struct {
	name, file string
	edit       func(string) string
}

// textFaults are generic ways a file sim wrote may be broken, each made
// for every file: cut at several points, emptied, converted, compressed.
func textFaults(file string) []corruption {
	var out []corruption
	for _, frac := range []float64{0.01, 0.25, 0.5, 0.75, 0.99} {
		out = append(out, corruption{fmt.Sprintf("%s cut at %.0f%%", file, 100*frac), file, func(s string) string {
			n := int(frac * float64(len(s)))
			if n > 0 && s[n-1] == '\n' {
				n-- // cut inside a line
			}
			return s[:n]
		}})
	}
	out = append(out,
		corruption{file + " empty", file, func(string) string { return "" }},
		corruption{file + " utf-16", file, func(s string) string {
			var b []byte
			for _, r := range s[:min(len(s), 2000)] + "\n" {
				b = append(b, byte(r), 0)
			}
			return string(b)
		}},
		corruption{file + " gzip", file, func(s string) string {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write([]byte(s))
			zw.Close()
			return b.String()
		}},
		corruption{file + " binary", file, func(s string) string { return "\x00\x00\x00" + s }},
	)
	return out
}

// rowFaults replace one field of one data row of a CSV sim wrote: col is
// the field's index.
func rowFaults(file string, cols map[int][]string) []corruption {
	var out []corruption
	for col, vals := range cols {
		for _, v := range vals {
			for _, row := range []int{1, 3} {
				out = append(out, corruption{fmt.Sprintf("%s row %d field %d = %q", file, row, col, v), file, func(s string) string {
					lines := strings.Split(s, "\n")
					if row >= len(lines)-1 {
						return s + "x"
					}
					f := strings.Split(lines[row], ",")
					f[col] = v
					lines[row] = strings.Join(f, ",")
					return strings.Join(lines, "\n")
				}})
			}
		}
	}
	out = append(out, corruption{file + " rows of an earlier time appended", file, func(s string) string {
		lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		if len(lines) < 3 {
			return s + s // the header is no row
		}
		return s + strings.Join(lines[1:3], "\n") + "\n"
	}})
	return out
}

// summaryFaults are broken summary.json files.
func summaryFaults() []corruption {
	set := func(name, v string) corruption {
		return corruption{"summary.json " + name, "summary.json", func(string) string { return v }}
	}
	repl := func(name, old, new string) corruption {
		return corruption{"summary.json " + name, "summary.json", func(s string) string {
			if !strings.Contains(s, old) {
				return "test bug: no " + old
			}
			return strings.Replace(s, old, new, 1)
		}}
	}
	return []corruption{
		set("{}", "{}"), set("[]", "[]"), set("null", "null"), set("a number", "5"),
		repl("another schema", `"schema": "evalsched-summary"`, `"schema": "evalsched-other"`),
		repl("no schema", `"schema": "evalsched-summary",`, ``),
		repl("version 0", `"schema_version": 2`, `"schema_version": 0`),
		repl("version 1", `"schema_version": 2`, `"schema_version": 1`),
		repl("version 99", `"schema_version": 2`, `"schema_version": 99`),
		repl("no runs", `"runs": [`, `"runs": [], "x": [`),
		repl("window reversed", `"window_s": [`, `"window_s": [1e9, `),
		repl("wrong type", `"schema_version": 2`, `"schema_version": "2"`),
		corruption{"summary.json trailing value", "summary.json", func(s string) string { return s + "{}\n" }},
	}
}

// TestBrokenOutputFolders: sim report and sim quota-check on a copy of a
// good compare folder with one fault each (cut, emptied, converted,
// compressed, a row's time NaN/Inf/1e308/negative, another run's rows, a
// count negative, summary.json of another schema or `{}`) exit 1, name the
// broken file, and leave the folder as it was.
func TestBrokenOutputFolders(t *testing.T) {
	good := filepath.Join(t.TempDir(), "good")
	mustSim(t, nil, "compare", "--scenario", "testdata/small.yaml", "--out", good)
	var cases []corruption
	for _, f := range []string{"summary.json", "series.csv", "batches.csv"} {
		cases = append(cases, textFaults(f)...)
	}
	cases = append(cases, summaryFaults()...)
	cases = append(cases, rowFaults("series.csv", map[int][]string{
		0: {"other-policy", ""}, 1: {"NaN", "Inf", "-Inf", "1e308", "-1", "x"}, 3: {"-5", "1.5", "x"}, 4: {"-2"}})...)
	cases = append(cases, rowFaults("batches.csv", map[int][]string{
		0: {"other-policy"}, 1: {"NaN", "1e308", "-1"}, 5: {"-1", "x"}, 7: {"999999"}})...)
	if 2*len(cases) < 150 {
		t.Fatalf("%d cases", 2*len(cases))
	}
	for i, tc := range cases {
		for _, cmd := range [][]string{{"report", "--in"}, {"quota-check", "--in"}} {
			t.Run(fmt.Sprintf("%03d %s %s", i, cmd[0], tc.name), func(t *testing.T) {
				t.Parallel()
				dir := filepath.Join(t.TempDir(), "run")
				copyTree(t, good, dir)
				p := filepath.Join(dir, tc.file)
				data, _ := os.ReadFile(p)
				os.WriteFile(p, []byte(tc.edit(string(data))), 0o644)
				before := treeOf(t, filepath.Dir(dir))
				_, stderr, code := runSimHere(t, append(cmd, dir)...)
				if code != exitError || strings.Contains(stderr, "panic") {
					t.Errorf("exit %d, want 1; %s", code, stderr)
				}
				if !strings.HasPrefix(stderr, "sim: "+p) && !strings.HasPrefix(stderr, "sim: report: "+p) {
					t.Errorf("error does not name %s: %s", p, firstLine(stderr))
				}
				if diff := cmp.Diff(before, treeOf(t, filepath.Dir(dir))); diff != "" {
					t.Errorf("the folder changed (-before +after):\n%s", diff)
				}
			})
		}
	}
}

// TestBrokenMerges: sim merge of sweep and compare shards with one fault
// each (a point file cut, of another sweep, holding NaN or another seed;
// a manifest or shard record of another sweep or compare, cut, or of
// another schema; a shard missing, given twice, not a directory; --out
// one of the shards or holding them) exits 1, names what is wrong, and
// changes neither --out nor the shards.
func TestBrokenMerges(t *testing.T) {
	root := t.TempDir()
	sweeps := filepath.Join(root, "sweep")
	for _, sh := range []string{"0/2", "1/2"} {
		mustSim(t, nil, "sweep", "--out", sweeps, "--shard", sh, "testdata/sweep.yaml")
	}
	compares := filepath.Join(root, "compare")
	for _, sh := range []string{"0/2", "1/2"} {
		mustSim(t, nil, "compare", "--scenario", "testdata/small.yaml", "--seeds", "2", "--shard", sh, "--out", compares)
	}
	type mcase struct {
		name, kind string         // kind: sweep or compare
		edit       func(d string) // on the copy of the shards' parent
		args       func(d, out string) []string
		want       string // in stderr, after d is substituted for {d}
	}
	shards := func(d, out string) []string {
		return []string{"merge", "--out", out, filepath.Join(d, "shard-0"), filepath.Join(d, "shard-1")}
	}
	editFile := func(rel string, f func(string) string) func(string) {
		return func(d string) {
			p := filepath.Join(d, rel)
			data, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(f(string(data))), 0o644)
		}
	}
	var cases []mcase
	for _, c := range textFaults("points/p0000.csv") {
		cases = append(cases, mcase{c.name, "sweep", editFile("shard-0/"+c.file, c.edit), shards, "{d}/shard-0/points/p0000.csv"})
	}
	for _, c := range []struct{ name, old, new string }{
		{"value NaN", ",throughput_per_hour,", ",throughput_per_hour,NaN"},
		{"another sweep's point", "# sweep ", "# sweep 0"},
		{"another seed", "\np0000,target_depth=5,factor=1.1,5,1.1,1,", "\np0000,target_depth=5,factor=1.1,5,1.1,7,"},
		{"another point's row", "\np0000,", "\np0002,"},
	} {
		cases = append(cases, mcase{"point " + c.name, "sweep", editFile("shard-0/points/p0000.csv", func(s string) string {
			if !strings.Contains(s, c.old) {
				return "test bug"
			}
			return strings.Replace(s, c.old, c.new, 1)
		}), shards, "{d}/shard-0/points/p0000.csv"})
	}
	for _, c := range textFaults("sweep.json") {
		cases = append(cases, mcase{c.name, "sweep", editFile("shard-1/"+c.file, c.edit), shards, "{d}/shard-1/sweep.json"})
	}
	cases = append(cases,
		mcase{"manifest of another sweep", "sweep", editFile("shard-1/sweep.json", func(s string) string { return strings.Replace(s, `"sweep_hash": "`, `"sweep_hash": "0`, 1) }), shards, "hold different sweeps"},
		mcase{"point missing", "sweep", func(d string) { os.Remove(filepath.Join(d, "shard-1", "points", "p0001.csv")) }, shards, "point p0001 is not done"},
		mcase{"one shard", "sweep", nil, func(d, out string) []string { return []string{"merge", "--out", out, filepath.Join(d, "shard-0")} }, "is not done"},
		mcase{"shard given twice", "sweep", nil, func(d, out string) []string {
			return []string{"merge", "--out", out, filepath.Join(d, "shard-0"), filepath.Join(d, "shard-0")}
		}, "are the same directory"},
		mcase{"out is a shard", "sweep", nil, func(d, _ string) []string {
			return []string{"merge", "--out", filepath.Join(d, "shard-1"), filepath.Join(d, "shard-0"), filepath.Join(d, "shard-1")}
		}, "overlap"},
		mcase{"out holds the shards", "sweep", nil, func(d, _ string) []string {
			return []string{"merge", "--out", d, filepath.Join(d, "shard-0"), filepath.Join(d, "shard-1")}
		}, "overlap"},
		mcase{"missing shard", "sweep", nil, func(d, out string) []string {
			return []string{"merge", "--out", out, filepath.Join(d, "shard-0"), filepath.Join(d, "nope")}
		}, "{d}/nope is not a directory"},
		mcase{"a file as shard", "sweep", nil, func(d, out string) []string {
			return []string{"merge", "--out", out, filepath.Join(d, "shard-0"), filepath.Join(d, "shard-0", "sweep.json")}
		}, "is not a directory"},
	)
	for _, c := range textFaults("compare-shard.json") {
		cases = append(cases, mcase{c.name, "compare", editFile("shard-1/"+c.file, c.edit), shards, "{d}/shard-1/compare-shard.json"})
	}
	for _, c := range []struct{ name, old, new, want string }{
		{"another scenario", `"digest": "`, `"digest": "0`, "hold different compares"},
		{"another schema", `"schema": "evalsched-compare-shard"`, `"schema": "x"`, "not a compare shard"},
		{"other seeds", `"seeds": 2`, `"seeds": 3`, "hold different compares"},
	} {
		cases = append(cases, mcase{"shard record " + c.name, "compare", editFile("shard-1/compare-shard.json", func(s string) string {
			if !strings.Contains(s, c.old) {
				return "test bug"
			}
			return strings.Replace(s, c.old, c.new, 1)
		}), shards, c.want})
	}
	for _, c := range textFaults("series.csv") {
		cases = append(cases, mcase{"first shard's " + c.name, "compare", editFile("shard-0/"+c.file, c.edit), shards, "{d}/shard-0/series.csv"})
	}
	// Whole lines cut, added or reordered: only summary.json's record of
	// the file tells (every shard's folder is read, not only the first's).
	cases = append(cases,
		mcase{"first shard's series.csv cut at a line boundary", "compare", editFile("shard-0/series.csv", func(s string) string {
			header, rows := csvRows(s)
			return csvJoin(header, rows[:len(rows)/2])
		}), shards, "{d}/shard-0/series.csv: rows: want "},
		mcase{"first shard's series.csv reordered", "compare", editFile("shard-0/series.csv", reorderWithinTimes), shards, "{d}/shard-0/series.csv: digest mismatch"},
		mcase{"second shard's series.csv with the first's rows", "compare", func(d string) {
			data, _ := os.ReadFile(filepath.Join(d, "shard-0", "series.csv"))
			os.WriteFile(filepath.Join(d, "shard-1", "series.csv"), data, 0o644)
		}, shards, "{d}/shard-1/series.csv: rows: want 0 "},
	)
	for i, tc := range cases {
		t.Run(fmt.Sprintf("%03d %s %s", i, tc.kind, tc.name), func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			d := filepath.Join(tmp, "shards")
			src := sweeps
			if tc.kind == "compare" {
				src = compares
			}
			copyTree(t, src, d)
			if tc.edit != nil {
				tc.edit(d)
			}
			out := filepath.Join(tmp, "merged", "out")
			plantOut(t, out)
			before := treeOf(t, tmp)
			_, stderr, code := runSimHere(t, tc.args(d, out)...)
			if code != exitError || strings.Contains(stderr, "panic") {
				t.Errorf("exit %d, want 1; %s", code, stderr)
			}
			if want := strings.ReplaceAll(tc.want, "{d}", d); !strings.Contains(firstLine(stderr), want) {
				t.Errorf("error lacks %q: %s", want, firstLine(stderr))
			}
			if diff := cmp.Diff(before, treeOf(t, tmp)); diff != "" {
				t.Errorf("--out or the shards changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestBadFlags: each bad command line exits 2 with its usage and writes
// nothing into --out (planted with a previous output) or beside it.
func TestBadFlags(t *testing.T) {
	gate := filepath.Join("..", "examples", "ci-gate.yaml")
	cases := [][]string{
		{"run", "--out", ""}, {"run", "--seed", "-1"}, {"run", "--seed", "x"}, {"run", "--top", "-1"}, {"run", "--bogus"},
		{"run", "--max-memory", "8XB"}, {"run", "--max-memory", "-1"}, {"run", "--max-memory", "NaN"}, {"run", "stray"},
		{"run", "--policy"}, {"compare", "--seeds", "0"}, {"compare", "--seeds", "1001"}, {"compare", "--seeds", "x"},
		{"compare", "--seeds", "2", "--shard", "2/2"}, {"compare", "--seeds", "2", "--shard", "x"}, {"compare", "--seeds", "2", "--shard", "-1/2"},
		{"compare", "--seeds", "2", "--shard", "0/2", "--report"}, {"compare", "--seed", "18446744073709551615", "--seeds", "2"},
		{"gate", "--update", gate}, {"gate", "--set", "nokey", gate}, {"gate", "--set", "bogus.key=1", gate}, {"gate", "--set", "=1", gate},
		{"gate", "--update", "--reason", "x", "--set", "policies.scheduler.max_limit=1", gate}, {"gate"}, {"gate", gate, gate},
		{"gate", "--set", "policies.scheduler.max_limit=x", gate},
		{"sweep"}, {"sweep", "a.yaml", "b.yaml"}, {"sweep", "--shard", "1/1", "a.yaml"}, {"tune"}, {"tune", "a", "b"},
		{"merge"}, {"quota-check"}, {"quota-check", "--in", "x", "--max-share", "0"}, {"quota-check", "--in", "x", "--max-share", "1.5"},
		{"report", "--in", ""}, {"nosuch-command"}, {"trace", "validate"}, {"trace", "gen"}, {"sweep", "a.yaml", "--out", "x"},
	}
	for i, args := range cases {
		t.Run(fmt.Sprintf("%02d %s", i, strings.Join(args, " ")), func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			out := filepath.Join(tmp, "p", "out")
			plantOut(t, out)
			before := treeOf(t, tmp)
			a := append([]string(nil), args...)
			if len(a) > 1 && !strings.HasPrefix(a[1], "--out") && a[0] != "merge" && a[0] != "nosuch-command" && a[0] != "trace" && a[0] != "quota-check" && a[0] != "report" {
				a = append([]string{a[0], "--out", out}, a[1:]...)
			}
			_, stderr, code := runSimHere(t, a...)
			if code != exitUsage || !strings.Contains(stderr, "usage:") || strings.Contains(stderr, "panic") {
				t.Errorf("sim %s: exit %d, want 2 with usage; %s", strings.Join(a, " "), code, stderr)
			}
			if diff := cmp.Diff(before, treeOf(t, tmp)); diff != "" {
				t.Errorf("something was written (-before +after):\n%s", diff)
			}
		})
	}
}

// TestTuneReplacesItsFolderWhole: a tune without a trade-off run into the
// folder of one with a trade-off leaves no front.png of the first beside
// its tune.csv; a tune that fails (no setting meets a constraint) leaves
// the folder as it was.
func TestTuneReplacesItsFolderWhole(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	base := "scenario: light-load\npolicy: scheduler\noverlay: {duration: 20m, warmup: 5m, events: []}\nseeds: 1\nparams:\n" +
		"  - {key: policies.scheduler.target_depth, min: 2, max: 16, integer: true}\nobjective: {metric: throughput_per_hour, goal: max}\nbudget: 3\n"
	with := filepath.Join(dir, "with.yaml")
	os.WriteFile(with, []byte(base+"trade_off: {metric: p90_job_time_s, goal: min}\n"), 0o644)
	without := filepath.Join(dir, "without.yaml")
	os.WriteFile(without, []byte(base), 0o644)
	failing := filepath.Join(dir, "failing.yaml")
	os.WriteFile(failing, []byte(base+"constraints:\n  - {metric: jain, min: 2}\n"), 0o644)
	mustSimOut(t, "tune", "--out", out, with)
	if _, err := os.Stat(filepath.Join(out, "front.png")); err != nil {
		t.Fatalf("the first tune wrote no front.png: %v", err)
	}
	mustSimOut(t, "tune", "--out", out, without)
	if _, err := os.Stat(filepath.Join(out, "front.png")); !os.IsNotExist(err) {
		t.Errorf("an earlier front.png survived beside the new tune.csv (%v)", err)
	}
	// A tune whose every setting misses a constraint is an answer, not a
	// failure: its evaluations replace the folder whole (exit 7).
	if _, stderr, code := runSim(t, "tune", "--out", out, failing); code != exitInfeasible || !strings.Contains(stderr, "no setting met the constraints") {
		t.Errorf("infeasible tune: exit %d, %s", code, stderr)
	}
	csv, err := os.ReadFile(filepath.Join(out, "tune.csv"))
	if err != nil || !strings.HasPrefix(string(csv), "policies.scheduler.target_depth,feasible,(all) throughput_per_hour,(all) jain\n") {
		t.Errorf("the infeasible tune's evaluations are not its folder's tune.csv: %v\n%s", err, csv)
	}
	// A tune that fails (a scenario that cannot be read) changes nothing.
	broken := filepath.Join(dir, "broken.yaml")
	os.WriteFile(broken, []byte(strings.Replace(base, "scenario: light-load", "scenario: "+filepath.Join(dir, "missing.yaml"), 1)), 0o644)
	before := treeOf(t, dir)
	if _, stderr, code := runSim(t, "tune", "--out", out, broken); code != exitError {
		t.Errorf("failing tune: exit %d, %s", code, stderr)
	}
	if diff := cmp.Diff(before, treeOf(t, dir)); diff != "" {
		t.Errorf("a failed tune changed the folder (-before +after):\n%s", diff)
	}
}

// TestStoppedSweepResumes: a sweep stopped by SIGTERM part way leaves
// --out absent (or, stopped after its swap, whole) and its points done in
// .NAME.resume; the
// rerun resumes there and gives the very files of an uninterrupted sweep.
func TestStoppedSweepResumes(t *testing.T) {
	ref := filepath.Join(t.TempDir(), "ref")
	start := time.Now()
	mustSim(t, nil, "sweep", "--out", ref, "testdata/sweep.yaml")
	length := time.Since(start)
	want := treeOf(t, ref)
	for _, frac := range []float64{0.2, 0.5, 0.8} {
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		cmd := exec.Command(os.Args[0], "sweep", "--out", out, "testdata/sweep.yaml")
		cmd.Env = append(os.Environ(), "SIM_TEST_AS_MAIN=1")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(frac * float64(length)))
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		// Stopped before its swap, --out is absent; after it, whole.
		if _, err := os.Stat(out); err == nil {
			if diff := cmp.Diff(want, treeOf(t, out)); diff != "" {
				t.Errorf("stopped at %.0f%% (exit %d): %s holds a partial sweep:\n%s", 100*frac, cmd.ProcessState.ExitCode(), out, diff)
			}
		}
		stderr := mustSim(t, nil, "sweep", "--out", out, "testdata/sweep.yaml")
		t.Logf("stopped at %.0f%% (exit %d); the rerun: %s", 100*frac, cmd.ProcessState.ExitCode(), firstLine(stderr))
		if diff := cmp.Diff(want, treeOf(t, out)); diff != "" {
			t.Errorf("stopped at %.0f%% and resumed: differs from the whole sweep (-want +got):\n%s\n%s", 100*frac, diff, stderr)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".out.resume")); len(left) > 0 {
			t.Errorf("the finished sweep left %v", left)
		}
	}
}
