package cli

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"go.yaml.in/yaml/v3"
)

// tableRow is a group row ("(all)" or "(grading)") of one pair's table on
// the terminal: old and new jobs/h and the multiplier cell as printed.
type tableRow struct {
	old, new float64
	mult     string
}

// terminalGroups reads compare's per-pair tables from stdout: for each
// pair "variant against baseline" (the first from the "old = A, new = B"
// line), its "(all)" and "(grading)" rows.
func terminalGroups(t *testing.T, stdout string) map[[2]string]map[string]tableRow {
	t.Helper()
	first := regexp.MustCompile(`^scenario .*: old = (\S+), new = (\S+), window`)
	next := regexp.MustCompile(`^(\S+) against (\S+):$`)
	out := map[[2]string]map[string]tableRow{}
	var pair [2]string
	inTable := false
	for _, line := range strings.Split(stdout, "\n") {
		if m := first.FindStringSubmatch(line); m != nil {
			pair, inTable = [2]string{m[1], m[2]}, false
			continue
		}
		if m := next.FindStringSubmatch(line); m != nil {
			pair, inTable = [2]string{m[2], m[1]}, false
			continue
		}
		cells := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1)
		if len(cells) > 1 && cells[0] == "model" && cells[1] == "old jobs/h" {
			inTable = pair[0] != ""
			continue
		}
		if !strings.HasPrefix(line, " ") { // a title: the compare table ended
			inTable = false
		}
		if !inTable || len(cells) < 4 || (cells[0] != results.AllLanes && cells[0] != results.GradingLanes) {
			continue
		}
		old, err1 := strconv.ParseFloat(cells[1], 64)
		new, err2 := strconv.ParseFloat(cells[2], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("row %q: jobs/h not numbers", line)
		}
		if out[pair] == nil {
			out[pair] = map[string]tableRow{}
		}
		out[pair][cells[0]] = tableRow{old, new, cells[3]}
	}
	return out
}

// shortScenario writes the embedded scenario name cut to its warm-up and
// one hour (its events and bursts past the end dropped), so that every
// variant of every scenario runs in seconds; incident-0214 is kept whole,
// since its variants differ only after 02:14.
func shortScenario(t *testing.T, name, dir string) string {
	t.Helper()
	if name == "incident-0214" {
		return name
	}
	data, err := scenario.EmbeddedYAML(name)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	warm := time.Duration(0)
	if w, ok := doc["warmup"].(string); ok {
		if warm, err = time.ParseDuration(w); err != nil {
			t.Fatal(err)
		}
	}
	doc["duration"] = (warm + time.Hour).String()
	delete(doc, "events")
	text, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHeadlineAgreesWithTableEveryVariant: for every embedded scenario,
// compared across all its variants (or fixed-lane against scheduler), the
// headline's figures (headline.json and the sentence on stdout) are those
// of the table printed under it: each pair's evaluation lanes are the
// "(all)" row and its grading the "(grading)" row, old and new jobs/h and
// the multiplier, and headline.json names the grading lanes the tables
// report. Before the headline read the runs' own classification it took
// the base scenario's judges, so incident-0214's graded variant (which adds
// a judge) said 1.9× where its "(all)" row says 0.96×.
func TestHeadlineAgreesWithTableEveryVariant(t *testing.T) {
	for _, name := range scenario.EmbeddedNames() {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			sc, err := scenario.LoadScenario("embedded:" + name)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			args := []string{"compare", "--scenario", shortScenario(t, name, dir), "--out", out, "--top", "1", "--max-memory", "0"}
			for _, v := range sc.VariantNames() {
				args = append(args, "--variant", v)
			}
			stdout, stderr, code := runSim(t, args...)
			if code != 0 {
				t.Fatalf("sim %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
			}
			var h results.Headline
			readJSON(t, filepath.Join(out, results.HeadlineFile), &h)
			tables := terminalGroups(t, stdout)
			if len(h.Pairs) == 0 || len(tables) != len(h.Pairs) {
				t.Fatalf("%d pairs in headline.json, %d tables on stdout:\n%s", len(h.Pairs), len(tables), stdout)
			}
			sentence := h.Sentences[0]
			if got := unwrapped(stdout)[0]; got != sentence {
				t.Errorf("stdout opens with %q, headline.json's first sentence is %q", got, sentence)
			}
			terminalFits(t, stdout)
			sawGrading := false
			for _, p := range h.Pairs {
				rows := tables[[2]string{p.Baseline, p.Variant}]
				all, ok := rows[results.AllLanes]
				if !ok {
					t.Fatalf("%s against %s: no (all) row on stdout", p.Variant, p.Baseline)
				}
				agree(t, p.Variant+" evaluation", p.Evaluation, all)
				agree(t, p.Variant+" all", p.All, all)
				agreeSentence(t, sentence, p.Variant, all)
				gr, hasGr := rows[results.GradingLanes]
				sawGrading = sawGrading || hasGr
				switch {
				case hasGr && p.Grading == nil:
					t.Errorf("%s: the table has a (grading) row %+v, the headline no grading figure", p.Variant, gr)
				case hasGr:
					agree(t, p.Variant+" grading", *p.Grading, gr)
				case p.Grading != nil && (p.Grading.OldPerHour != 0 || p.Grading.NewPerHour != 0):
					t.Errorf("%s: the headline has grading %+v, the table no (grading) row", p.Variant, *p.Grading)
				}
			}
			if sawGrading != (len(h.GradingModels) > 0) {
				t.Errorf("headline.json grading_models %q, the tables a (grading) row: %v", h.GradingModels, sawGrading)
			}
			for i, r := range h.Runs {
				var s results.Summary
				readJSON(t, filepath.Join(out, "summary.json"), &s)
				if got, want := r.EvaluationPerHour, s.Runs[i].Total.ThroughputPerHour; got != want {
					t.Errorf("run %s: headline evaluation %v jobs/h, summary.json's (all) %v", r.Policy, got, want)
				}
			}
		})
	}
}

// agree holds a headline figure against a table row: jobs/h as printed
// (one decimal) and the multiplier (two decimals), or no multiplier where
// the table shows none.
func agree(t *testing.T, what string, f results.HeadlineFigure, row tableRow) {
	t.Helper()
	if math.Abs(f.OldPerHour-row.old) > 0.05+1e-9 || math.Abs(f.NewPerHour-row.new) > 0.05+1e-9 {
		t.Errorf("%s: headline %v → %v jobs/h, table %v → %v", what, f.OldPerHour, f.NewPerHour, row.old, row.new)
	}
	tableMult, err := strconv.ParseFloat(strings.TrimSuffix(row.mult, "x"), 64)
	switch {
	case err != nil && f.Multiplier != nil:
		t.Errorf("%s: headline multiplier %v, table %q", what, *f.Multiplier, row.mult)
	case err == nil && f.Multiplier == nil:
		t.Errorf("%s: headline no multiplier (near zero %v), table %q", what, f.NearZero, row.mult)
	case err == nil && fmt.Sprintf("%.2f", *f.Multiplier) != fmt.Sprintf("%.2f", tableMult):
		t.Errorf("%s: headline multiplier %.4f, table %q", what, *f.Multiplier, row.mult)
	}
}

// agreeSentence finds variant's figure in the headline's sentence ("V took
// M× the throughput (A → B jobs/h)" or "V went A → B jobs/h") and holds
// its rounded numbers against the table's row.
func agreeSentence(t *testing.T, sentence, variant string, row tableRow) {
	t.Helper()
	re := regexp.MustCompile(`(?:^|[:;] )` + regexp.QuoteMeta(variant) + `(?: against \S+ on .*?: the evaluation lanes)? (?:took ([0-9.]+)× the throughput.*?\(|went |had .*?seed \d+: )(?:([0-9.]+)×, )?([0-9,]+) → ([0-9,]+) jobs/h`)
	m := re.FindStringSubmatch(sentence)
	if m == nil {
		t.Errorf("headline has no figure for %s:\n%s", variant, sentence)
		return
	}
	num := func(s string) float64 {
		x, _ := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
		return x
	}
	if math.Abs(num(m[3])-row.old) > 0.55 || math.Abs(num(m[4])-row.new) > 0.55 {
		t.Errorf("headline says %s %s → %s jobs/h, table %v → %v", variant, m[3], m[4], row.old, row.new)
	}
	if m[1] != "" {
		// the same two decimals as the table (one decimal read +4.6% as 1.0×)
		if m[1]+"x" != row.mult {
			t.Errorf("headline says %s took %s×, table %q", variant, m[1], row.mult)
		}
	}
}

// terminalFits holds compare's terminal output to what a reader can take
// in: every line within 100 columns (the tables in blocks of columns, the
// prose wrapped), and no bare share under a "p90 wait" head.
func terminalFits(t *testing.T, stdout string) {
	t.Helper()
	for i, l := range strings.Split(stdout, "\n") {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("stdout line %d is %d columns wide:\n%s", i+1, n, l)
		}
		if strings.Contains(l, "p90 wait") && !strings.Contains(l, "p90 wait share") {
			t.Errorf("stdout line %d has a p90 wait head without its unit: %q", i+1, l)
		}
	}
}
