package predict

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRefusedInputs: a sample read twice, and a --fit-from log of the
// run being predicted, are refused naming both files.
func TestRefusedInputs(t *testing.T) {
	const base = "2025-09-15T15-07-21-04-00_popularity_TrR56PVX4fHPUViCDMPg8g.eval"
	const pop = "2025-09-23T08-09-58-04-00_popularity_DN2wbX2ZvACsBpjwptzBRo.eval"
	const sec = "2025-09-23T08-09-58-04-00_security-guide_LuxZJVwvymC3S3SyoJczxB.eval"
	log := realRuns + "/" + base
	dir := t.TempDir()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "copy.eval"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "copy.eval")
	// The log's 100 samples (unzip -l: samples/1_epoch_1.json ..
	// 100_epoch_1.json), the first by id "1", and the run_id of its
	// header.json (unzip -p LOG header.json).
	const dup = " the same 100 sample(s) of task popularity, sample 1 epoch 1 first (run_id R3Bzph5WXJNKvpCg3uFmd3): a sample read twice would double its run; give each log once"
	for _, tc := range []struct {
		name    string
		paths   []string
		fitFrom []string
		want    string
	}{
		{"a file twice", []string{log, log}, nil, log + " is given twice: it holds" + dup},
		{"a directory and one of its files", []string{dir, cp}, nil, cp + " is given twice: it holds" + dup},
		{"two copies", []string{log, cp}, nil, log + " and " + cp + " both hold" + dup},
		{"--fit-from the predicted log", []string{log}, []string{cp}, "--fit-from " + cp + " is of run R3Bzph5WXJNKvpCg3uFmd3, as is " + log +
			", a log being predicted: the fit would be in sample; fit from other runs' logs"},
		{"--fit-from a sibling task of the run", []string{realRuns + "/" + pop}, []string{realRuns + "/" + sec}, "--fit-from " + realRuns + "/" + sec +
			" is of run 9zsQGSCUfJL6aZdSHP6PQc, as is " + realRuns + "/" + pop + ", a log being predicted: the fit would be in sample; fit from other runs' logs"},
		{"--fit-from a log twice", []string{realRuns + "/" + pop}, []string{log, cp}, "--fit-from: " + log + " and " + cp + " both hold" + dup},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Check(tc.paths, Options{Seeds: 1, FitFrom: tc.fitFrom})
			got := "<nil>"
			if err != nil {
				got = err.Error()
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
		})
	}
}

// TestInSampleLabelled: --folds 1 is refused; a run with one sample
// cannot be held out: its fit says so, and its errors stay out of the
// summary, which then counts the other run alone.
func TestInSampleLabelled(t *testing.T) {
	one := synth{samples: 1, maxSamples: 1, maxConn: 4, seed: 41}.write(t)
	ten := synth{samples: 10, maxSamples: 4, maxConn: 4, seed: 42}.write(t)
	if _, err := Check([]string{ten}, Options{Seeds: 1, Folds: 1}); err == nil {
		t.Errorf("Folds 1: no error, want a refusal")
	}
	rep, err := Check([]string{one, ten}, Options{Seeds: 3})
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Run       string
		HeldOut   bool
		FitFrom   string
		FitHeld   bool
		Makespans int
	}
	var gots []got
	for _, r := range rep.Runs {
		gots = append(gots, got{r.Run, r.HeldOut, r.Fits[0].From, r.Fits[0].HeldOut, rep.Summary["makespan_s"].Runs})
	}
	want := []got{
		{"r41", false, "in sample (1 sample with a timed call: none to hold out)", false, 1},
		{"r42", true, "5-fold by sample", true, 1},
	}
	if d := cmp.Diff(want, gots); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestMissingTasksWarned: one log of the three-task 2025-09-23 run
// (run_id 9zsQGSCUfJL6aZdSHP6PQc; tasks security_guide and theory_of_mind
// in its two sibling logs' headers) is predicted with a warning naming
// the siblings beside it; alone in a directory, with one saying its
// max_tasks 4 (its header's config) allows other tasks; a one-task run
// has none.
func TestMissingTasksWarned(t *testing.T) {
	const pop = "2025-09-23T08-09-58-04-00_popularity_DN2wbX2ZvACsBpjwptzBRo.eval"
	const why = "they shared its connection pools, so a call that queued behind their calls is taken as having had a connection at once: the fitted latency may include waits, and the replay leaves their calls out; give every log of the run"
	dir := t.TempDir()
	b, err := os.ReadFile(realRuns + "/" + pop)
	if err != nil {
		t.Fatal(err)
	}
	lone := filepath.Join(dir, pop)
	if err := os.WriteFile(lone, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		path string
		want []string
	}{
		{"siblings beside it", realRuns + "/" + pop, []string{"run 9zsQGSCUfJL6aZdSHP6PQc has tasks not given: security_guide (" + realRuns +
			"/2025-09-23T08-09-58-04-00_security-guide_LuxZJVwvymC3S3SyoJczxB.eval), theory_of_mind (" + realRuns +
			"/2025-09-23T08-09-58-04-00_theory-of-mind_bbB4eRCx2rFJLyPH42Cj9r.eval); " + why}},
		{"alone, max_tasks 4", lone, []string{lone + " sets max_tasks 4 and is the only log of run 9zsQGSCUfJL6aZdSHP6PQc given: if the run had other tasks, " + why}},
		{"a one-task run", realRuns + "/2025-09-15T15-07-21-04-00_popularity_TrR56PVX4fHPUViCDMPg8g.eval", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Check([]string{tc.path}, Options{Seeds: 1})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, rep.Runs[0].Warnings); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}

// TestFitFromSameFileNoRunID: a log without a run_id given to --fit-from
// under another path to the same file is refused too.
func TestFitFromSameFileNoRunID(t *testing.T) {
	p := synth{samples: 4, maxSamples: 2, maxConn: 2, seed: 43}.write(t)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	nb := strings.Replace(string(b), `"run_id":"r43",`, "", 1)
	if nb == string(b) {
		t.Fatal("no run_id to remove")
	}
	if err := os.WriteFile(p, []byte(nb), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Dir(p) + "/./" + filepath.Base(p)
	_, err = Check([]string{p}, Options{Seeds: 1, FitFrom: []string{other}})
	want := "--fit-from " + other + " is a log being predicted, " + p + ": the fit would be in sample; fit from other runs' logs"
	got := "<nil>"
	if err != nil {
		got = err.Error()
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
