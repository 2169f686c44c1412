package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runSimEnv is runSim with extra environment variables (the array-job
// engines' shard variables).
func runSimEnv(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "SIM_TEST_AS_MAIN=1"), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// readTree maps every file under dir (relative path) to its content.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func mustSim(t *testing.T, env []string, args ...string) string {
	t.Helper()
	_, stderr, code := runSimEnv(t, env, args...)
	if code != 0 {
		t.Fatalf("sim %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return stderr
}

// TestSweepShardedMergedEqualsWhole: the sweep run as shards (each engine's
// environment variables, and --shard) and merged gives the very files of
// one unsharded run.
func TestSweepShardedMergedEqualsWhole(t *testing.T) {
	whole := filepath.Join(t.TempDir(), "whole")
	mustSim(t, nil, "sweep", "--out", whole, "testdata/sweep.yaml")
	want := readTree(t, whole)
	// 8 total figures: small has no window with two projects backlogged,
	// so jain is not measured (no row, not a 0).
	if n := strings.Count(want["sweep.csv"], "\n"); n != 1+4*2*(8+7) {
		t.Fatalf("sweep.csv has %d lines, want header + 4 points x 2 seeds x (8 total + 7 lane figures)", n)
	}
	tests := []struct {
		name string
		envs [][]string // one per shard
		args [][]string
	}{
		{"kubernetes indexed job", [][]string{{"JOB_COMPLETION_INDEX=0", "SIM_SHARDS=4"}, {"JOB_COMPLETION_INDEX=1", "SIM_SHARDS=4"},
			{"JOB_COMPLETION_INDEX=2", "SIM_SHARDS=4"}, {"JOB_COMPLETION_INDEX=3", "SIM_SHARDS=4"}}, nil},
		{"slurm array from 1", [][]string{{"SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_COUNT=3"},
			{"SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_COUNT=3"}, {"SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_COUNT=3"}}, nil},
		{"aws batch", [][]string{{"AWS_BATCH_JOB_ARRAY_INDEX=0", "SIM_SHARDS=2"}, {"AWS_BATCH_JOB_ARRAY_INDEX=1", "SIM_SHARDS=2"}}, nil},
		{"--shard flag", nil, [][]string{{"--shard", "0/2"}, {"--shard", "1/2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			shards := filepath.Join(root, "shards")
			n := max(len(tt.envs), len(tt.args))
			var dirs []string
			for i := range n {
				var env, extra []string
				if tt.envs != nil {
					env = tt.envs[i]
				}
				if tt.args != nil {
					extra = tt.args[i]
				}
				mustSim(t, env, append(append([]string{"sweep", "--out", shards}, extra...), "testdata/sweep.yaml")...)
				dirs = append(dirs, filepath.Join(shards, "shard-"+string(rune('0'+i))))
			}
			merged := filepath.Join(root, "merged")
			mustSim(t, nil, append([]string{"merge", "--out", merged}, dirs...)...)
			if diff := cmp.Diff(want, readTree(t, merged)); diff != "" {
				t.Errorf("merged shards differ from the unsharded run (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("a missing shard is refused", func(t *testing.T) {
		shards := filepath.Join(t.TempDir(), "s")
		mustSim(t, []string{"JOB_COMPLETION_INDEX=0", "SIM_SHARDS=2"}, "sweep", "--out", shards, "testdata/sweep.yaml")
		if _, stderr, code := runSim(t, "merge", "--out", t.TempDir(), filepath.Join(shards, "shard-0")); code != exitError || !strings.Contains(stderr, "not done") {
			t.Errorf("merge of half the shards: exit %d, %s; want exit 1, a point not done", code, stderr)
		}
	})
}

// TestSweepResume: a second run skips the points already written (a
// planted point file survives untouched), reruns a missing one, and gives
// the same files as the first.
func TestSweepResume(t *testing.T) {
	dir := t.TempDir()
	mustSim(t, nil, "sweep", "--out", dir, "testdata/sweep.yaml")
	want := readTree(t, dir)
	planted := filepath.Join(dir, "points", "p0001.csv")
	// A done point whose file is whole is kept as it is (a value changed
	// to another finite number shows it was not rerun).
	plantedText := strings.Replace(want["points/p0001.csv"], ",throughput_per_hour,", ",throughput_per_hour,7", 1)
	if plantedText == want["points/p0001.csv"] {
		t.Fatal("test bug: no throughput row to plant")
	}
	if err := os.WriteFile(planted, []byte(plantedText), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "points", "p0002.csv")); err != nil {
		t.Fatal(err)
	}
	stderr := mustSim(t, nil, "sweep", "--out", dir, "testdata/sweep.yaml")
	if !strings.Contains(stderr, "3 already done") {
		t.Errorf("resumed sweep says %q, want 3 points already done", stderr)
	}
	if got, _ := os.ReadFile(planted); string(got) != plantedText {
		t.Errorf("a done point was rerun: %q", got)
	}
	// A point file that is not whole, or of another sweep, is refused at
	// its line, not read as zeros; nothing in the directory changes.
	for _, bad := range []struct{ name, text, want string }{
		{"garbage", "planted\n", planted + ":1: not a point file of this sweep"},
		{"cut", plantedText[:len(plantedText)-3], planted + ": cut short"},
		{"another sweep", strings.Replace(plantedText, "# sweep ", "# sweep 0", 1), planted + ":1: not a point file of this sweep"},
		{"bad value", strings.Replace(plantedText, ",throughput_per_hour,7", ",throughput_per_hour,x7", 1), ": value: \"x7"},
		{"nan value", strings.Replace(plantedText, ",throughput_per_hour,7", ",throughput_per_hour,NaN", 1), ": value: \"NaN"},
	} {
		os.WriteFile(planted, []byte(bad.text), 0o644)
		before := readTree(t, dir)
		if _, stderr, code := runSim(t, "sweep", "--out", dir, "testdata/sweep.yaml"); code != exitError || !strings.Contains(stderr, bad.want) {
			t.Errorf("%s point file: exit %d, %s; want 1 and %q", bad.name, code, stderr, bad.want)
		}
		if diff := cmp.Diff(before, readTree(t, dir)); diff != "" {
			t.Errorf("%s point file: the refused sweep changed its directory:\n%s", bad.name, diff)
		}
	}
	if err := os.WriteFile(planted, []byte(want["points/p0001.csv"]), 0o644); err != nil {
		t.Fatal(err)
	}
	mustSim(t, nil, "sweep", "--out", dir, "testdata/sweep.yaml")
	if diff := cmp.Diff(want, readTree(t, dir)); diff != "" {
		t.Errorf("resumed sweep differs (-want +got):\n%s", diff)
	}
	other := filepath.Join(t.TempDir(), "other.yaml")
	data, _ := os.ReadFile("testdata/sweep.yaml")
	os.WriteFile(other, append(data, []byte("metrics: [jain]\n")...), 0o644)
	os.Symlink(filepath.Join(mustAbs(t, "testdata"), "small.yaml"), filepath.Join(filepath.Dir(other), "small.yaml"))
	if _, stderr, code := runSim(t, "sweep", "--out", dir, other); code != exitError || !strings.Contains(stderr, "another sweep") {
		t.Errorf("another sweep into the same directory: exit %d, %s; want refused", code, stderr)
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestMergeRefusesWhatIsNotAShard: merge names a missing directory, or one
// that holds no shard, as such (it used to report a missing sweep.json
// inside a directory that did not exist), and writes nothing.
func TestMergeRefusesWhatIsNotAShard(t *testing.T) {
	tmp := t.TempDir()
	empty := filepath.Join(tmp, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(tmp, "missing")
	for _, tc := range []struct{ dir, want string }{
		{missing, "merge: " + missing + " is not a directory"},
		{empty, "merge: " + empty + " holds no sweep.json"},
	} {
		out := filepath.Join(tmp, "out")
		_, stderr, code := runSim(t, "merge", "--out", out, tc.dir)
		if code != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("merge %s: exit %d, stderr %q; want 1 and %q", tc.dir, code, stderr, tc.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("merge %s wrote %s", tc.dir, out)
		}
	}
}

// TestSweepListItemKeys: a grid key may set a field of a list item by its
// name (organisations.acme.tpd) and a per-model setting of a model whose
// name holds dots; each point is the run of the scenario edited by hand,
// and a misspelt item is refused at its line before anything is written.
func TestSweepListItemKeys(t *testing.T) {
	dir := t.TempDir()
	shown, _, code := runSim(t, "scenarios", "--show", "incident-0214")
	if code != 0 || !strings.Contains(shown, "    tpd: 48000000\n") {
		t.Fatalf("scenarios --show incident-0214: exit %d", code)
	}
	edited := filepath.Join(dir, "edited.yaml")
	if err := os.WriteFile(edited, []byte(strings.Replace(shown, "    tpd: 48000000\n", "    tpd: 96000000\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	sweep := filepath.Join(dir, "sweep.yaml")
	os.WriteFile(sweep, []byte("scenario: incident-0214\npolicy: fixed-lane\nseeds: 1\ngrid:\n  organisations.acme.tpd: [48000000, 96000000]\n"+
		"lanes: [\"(all)\"]\nmetrics: [throughput_per_hour]\n"), 0o644)
	mustSim(t, nil, "sweep", "--out", filepath.Join(dir, "out"), sweep)
	summary, _ := os.ReadFile(filepath.Join(dir, "out", "summary.csv"))
	perPoint := map[string]string{} // tpd -> mean
	for _, line := range strings.Split(strings.TrimSpace(string(summary)), "\n")[1:] {
		f := strings.Split(line, ",")
		perPoint[f[2]] = f[6]
	}
	for _, tc := range []struct{ tpd, scenario string }{{"48000000", "incident-0214"}, {"96000000", edited}} {
		out := filepath.Join(dir, "run-"+tc.tpd)
		stdout := mustSimOut(t, "run", "--scenario", tc.scenario, "--policy", "fixed-lane", "--seed", "1", "--out", out, "--json")
		var s struct {
			Runs []struct {
				Total struct {
					ThroughputPerHour float64 `json:"throughput_per_hour"`
				} `json:"total"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(stdout), &s); err != nil || len(s.Runs) != 1 {
			t.Fatalf("run --json: %v", err)
		}
		if got, want := perPoint[tc.tpd], strconv.FormatFloat(s.Runs[0].Total.ThroughputPerHour, 'g', -1, 64); got != want {
			t.Errorf("tpd %s: the sweep's point says %s jobs/h, the run of the scenario edited by hand %s", tc.tpd, got, want)
		}
	}
	if perPoint["48000000"] == perPoint["96000000"] {
		t.Errorf("the daily token quota changed nothing: %v", perPoint)
	}

	// A per-model setting of gpt-5.5 (a name with a dot) reads as one model.
	os.WriteFile(sweep, []byte("scenario: default\npolicy: scheduler\nseeds: 1\n"+
		"overlay: {duration: 10m, warmup: 0s, events: [], workload: {batches: {bursts: []}}}\n"+
		"grid:\n  policies.scheduler.models.gpt-5.5.max_limit: [2]\nlanes: [gpt-5.5]\nmetrics: [throughput_per_hour]\n"), 0o644)
	mustSim(t, nil, "sweep", "--out", filepath.Join(dir, "dotted"), sweep)

	// A misspelt item: refused at its line, no directory made.
	os.WriteFile(sweep, []byte("scenario: incident-0214\npolicy: fixed-lane\nseeds: 1\ngrid:\n  organisations.acmee.tpd: [1]\n"), 0o644)
	bad := filepath.Join(dir, "bad")
	if _, stderr, code := runSim(t, "sweep", "--out", bad, sweep); code != exitError || !strings.Contains(stderr, sweep+`:5: grid.organisations.acmee.tpd: the scenario's organisations has no item with name "acmee" (have acme)`) {
		t.Errorf("misspelt item: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("a refused sweep left %s behind", bad)
	}
}

func mustSimOut(t *testing.T, args ...string) string {
	t.Helper()
	stdout, stderr, code := runSim(t, args...)
	if code != 0 {
		t.Fatalf("sim %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return stdout
}

// TestTuneListItemKey: a tune parameter may be a field of a list item (a
// virtual key's daily tokens); the overlay it prints sets that item by
// name. A misspelt item is refused at its line with nothing written.
func TestTuneListItemKey(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tune.yaml")
	tune := "scenario: incident-0214\nvariant: virtual-key\nseeds: 1\nparams:\n" +
		"  - {key: keys.evals.tpd, min: 1000000, max: 20000000, integer: true, log: true}\n" +
		"objective: {metric: throughput_per_hour, goal: max}\nbudget: 3\n"
	os.WriteFile(file, []byte(tune), 0o644)
	stdout := mustSimOut(t, "tune", "--out", filepath.Join(dir, "out"), file)
	if !strings.Contains(stdout, "keys:\n  - name: evals\n    tpd: ") {
		t.Errorf("the overlay printed does not set the key by name:\n%s", stdout)
	}
	os.WriteFile(file, []byte(strings.Replace(tune, "keys.evals.tpd", "keys.evalz.tpd", 1)), 0o644)
	bad := filepath.Join(dir, "bad")
	if _, stderr, code := runSim(t, "tune", "--out", bad, file); code != exitError || !strings.Contains(stderr, file+`:5: params[0].key: the scenario's keys has no item with name "evalz" (have evals)`) {
		t.Errorf("misspelt item: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("a refused tune left %s behind", bad)
	}
}
