package cli

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// commas writes a rate rounded to a whole number with thousands separated.
func commas(x float64) string {
	s := strconv.FormatInt(int64(math.Round(x)), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// groupPerHour sums the throughput of a run's evaluation lanes (not a
// judge) or grading lanes, read from summary.json.
func groupPerHour(r results.Run, judges []string, grading bool) (perHour float64, completed int64) {
	for _, l := range r.Lanes {
		if slices.Contains(judges, l.Model) == grading {
			perHour += l.ThroughputPerHour
			completed += l.Completed
		}
	}
	return perHour, completed
}

// TestHeadlineAgreesWithSummary: sim compare opens with the headline
// (headline.json's sentences, first on stdout), and its numbers are those of
// summary.json: the evaluation and grading lanes' throughput on the first
// seed summed from the lanes, and over three seeds the geometric mean and
// 95% interval of the per-seed multipliers, recomputed here from three
// single-seed compares with Student's t for two degrees of freedom.
func TestHeadlineAgreesWithSummary(t *testing.T) {
	dir := t.TempDir()
	scen := "testdata/graded.yaml"
	out := filepath.Join(dir, "seeds")
	stdout, stderr, code := runSim(t, "compare", "--scenario", scen, "--seed", "1", "--seeds", "3", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var h results.Headline
	readJSON(t, filepath.Join(out, results.HeadlineFile), &h)
	var s results.Summary
	readJSON(t, filepath.Join(out, "summary.json"), &s)
	lines := unwrapped(stdout)
	if diff := cmp.Diff(h.Sentences, lines[:len(h.Sentences)]); diff != "" {
		t.Fatalf("stdout does not open with the headline (-headline +stdout):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"judge"}, h.GradingModels); diff != "" {
		t.Errorf("grading models (-want +got):\n%s", diff)
	}

	oldEv, _ := groupPerHour(s.Runs[0], h.GradingModels, false)
	newEv, _ := groupPerHour(s.Runs[1], h.GradingModels, false)
	oldGr, _ := groupPerHour(s.Runs[0], h.GradingModels, true)
	newGr, _ := groupPerHour(s.Runs[1], h.GradingModels, true)
	for _, want := range []string{
		"the evaluation lanes took ",
		fmt.Sprintf("(seed 1: %s, %s → %s jobs/h)", results.TimesText(newEv/oldEv), commas(oldEv), commas(newEv)),
		"grading (judge) took ",
		fmt.Sprintf("%s → %s jobs/h", commas(oldGr), commas(newGr)),
		fmt.Sprintf("Small batches finished (seed 1): fixed-lane %d of %d, scheduler %d of %d.",
			s.Runs[0].Fairness.SmallBatches-s.Runs[0].Fairness.SmallUnfinished, s.Runs[0].Fairness.SmallBatches,
			s.Runs[1].Fairness.SmallBatches-s.Runs[1].Fairness.SmallUnfinished, s.Runs[1].Fairness.SmallBatches),
	} {
		if !strings.Contains(strings.Join(h.Sentences, " "), want) {
			t.Errorf("headline lacks %q:\n%s", want, strings.Join(h.Sentences, "\n"))
		}
	}

	// Each seed alone, then the interval by hand.
	var evRatios, grRatios, allRatios []float64
	for seed := 1; seed <= 3; seed++ {
		d := filepath.Join(dir, fmt.Sprint(seed))
		mustSim(t, nil, "compare", "--scenario", scen, "--seed", fmt.Sprint(seed), "--out", d)
		var one results.Summary
		readJSON(t, filepath.Join(d, "summary.json"), &one)
		o, _ := groupPerHour(one.Runs[0], h.GradingModels, false)
		n, _ := groupPerHour(one.Runs[1], h.GradingModels, false)
		evRatios = append(evRatios, n/o)
		o, _ = groupPerHour(one.Runs[0], h.GradingModels, true)
		n, _ = groupPerHour(one.Runs[1], h.GradingModels, true)
		grRatios = append(grRatios, n/o)
		allRatios = append(allRatios, one.Runs[1].Total.ThroughputPerHour/one.Runs[0].Total.ThroughputPerHour)
	}
	const t2 = 4.302652729749464 // Student's t, 97.5% quantile, 2 degrees of freedom
	interval := func(ratios []float64) [3]float64 {
		var m, ss float64
		for _, r := range ratios {
			m += math.Log(r) / 3
		}
		for _, r := range ratios {
			ss += (math.Log(r) - m) * (math.Log(r) - m)
		}
		half := t2 * math.Sqrt(ss/2) / math.Sqrt(3)
		return [3]float64{math.Exp(m), math.Exp(m - half), math.Exp(m + half)}
	}
	got := func(f *results.HeadlineFigure) [3]float64 {
		a := f.AcrossSeeds
		if a == nil || a.Low == nil || a.High == nil || a.Seeds != 3 {
			t.Fatalf("no interval over 3 seeds: %+v", f)
		}
		return [3]float64{a.Mean, *a.Low, *a.High}
	}
	p := h.Pairs[0]
	approx := cmpopts.EquateApprox(1e-9, 0)
	for _, c := range []struct {
		name      string
		want, got [3]float64
	}{
		{"evaluation", interval(evRatios), got(&p.Evaluation)},
		{"grading", interval(grRatios), got(p.Grading)},
		{"all", interval(allRatios), got(&p.All)},
	} {
		if diff := cmp.Diff(c.want, c.got, approx); diff != "" {
			t.Errorf("%s over seeds (-recomputed +headline):\n%s", c.name, diff)
		}
	}
	ev := interval(evRatios)
	if want := fmt.Sprintf("the evaluation lanes took %s [%s, %s] the throughput over 3 seeds", results.TimesText(ev[0]), results.TimesText(ev[1]), results.TimesText(ev[2])); !strings.Contains(h.Sentences[0], want) {
		t.Errorf("headline lacks %q:\n%s", want, h.Sentences[0])
	}
	// The judge is the only grading lane: its multiplier over seeds in
	// summary.json is the grading figure.
	for _, m := range s.MultiplierAcrossSeeds {
		if m.Model == "judge" {
			if diff := cmp.Diff([3]float64{m.Mean, *m.Low, *m.High}, got(p.Grading), approx); diff != "" {
				t.Errorf("grading against summary.json's judge lane (-summary +headline):\n%s", diff)
			}
		}
	}
	// summary.json's multiplier_across_seeds carries the group rows too:
	// "(all)" (the evaluation lanes) and "(grading)", each the same
	// interval as recomputed by hand.
	groups := map[string][3]float64{}
	for _, m := range s.MultiplierAcrossSeeds {
		if m.Model == results.AllLanes || m.Model == results.GradingLanes {
			if m.Low == nil || m.High == nil {
				t.Fatalf("summary.json %s over seeds has no interval: %+v", m.Model, m)
			}
			groups[m.Model] = [3]float64{m.Mean, *m.Low, *m.High}
		}
	}
	if diff := cmp.Diff(map[string][3]float64{results.AllLanes: interval(allRatios), results.GradingLanes: interval(grRatios)}, groups, approx); diff != "" {
		t.Errorf("summary.json's group rows over seeds (-recomputed +summary):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(out, "summary.json")); err != nil {
		t.Fatal(err)
	}
}

// TestHeadlineNearZero: a lane group whose baseline completed fewer than
// MinRatioCompleted (20) jobs says so instead of giving a ratio, as the
// tables print "n/a (old N)": 1 job, and 10 (tail-001's 10 jobs read as
// 15.00x).
func TestHeadlineNearZero(t *testing.T) {
	run := func(policy string, judge float64, judgeDone int64) results.Run {
		g := results.Lane{Model: results.GradingLanes, Grading: true, ThroughputPerHour: judge, Completed: judgeDone}
		return results.Run{Policy: policy, Total: results.Lane{Model: results.AllLanes, ThroughputPerHour: 100, Completed: 100}, Grading: &g,
			Lanes: []results.Lane{{Model: "m", ThroughputPerHour: 100, Completed: 100}, {Model: "judge", Grading: true, ThroughputPerHour: judge, Completed: judgeDone}}}
	}
	h := results.NewHeadline("s", 1, [][]results.Run{{run("old", 2, 1), run("new", 50, 40)}})
	want := "new against old on s (seed 1): the evaluation lanes took 1.00× the throughput (100 → 100 jobs/h); grading (judge) went 2 → 50 jobs/h (the baseline completed 1 jobs in the window: too few for a ratio)."
	if diff := cmp.Diff(want, h.Sentences[0]); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if h.Pairs[0].Grading.Multiplier != nil || !h.Pairs[0].Grading.NearZero {
		t.Errorf("grading figure %+v: want near zero, no multiplier", h.Pairs[0].Grading)
	}
	for _, c := range []struct {
		done  int64
		ratio bool
	}{{10, false}, {19, false}, {20, true}} {
		h := results.NewHeadline("s", 1, [][]results.Run{{run("old", 2, c.done), run("new", 50, 40)}})
		if g := h.Pairs[0].Grading; (g.Multiplier != nil) != c.ratio || g.NearZero == c.ratio {
			t.Errorf("baseline of %d jobs: multiplier %v near zero %v, want a ratio: %v", c.done, g.Multiplier, g.NearZero, c.ratio)
		}
	}
}

// unwrapped is stdout's lines with the terminal's wrapping of the headline
// undone: up to the first blank line (the headline's end), a line that
// starts with two spaces continues the line above.
func unwrapped(stdout string) []string {
	var out []string
	head := true
	for _, l := range strings.Split(stdout, "\n") {
		if head && strings.HasPrefix(l, "  ") && len(out) > 0 {
			out[len(out)-1] += " " + strings.TrimPrefix(l, "  ")
			continue
		}
		head = head && l != ""
		out = append(out, l)
	}
	return out
}
