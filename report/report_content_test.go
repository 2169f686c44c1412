package report_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evalsched/lab/report"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/sim/simtest"
	"github.com/google/go-cmp/cmp"
)

// reportFile writes the report of dir and returns its file name
// (report.html or report.md).
func reportFile(t *testing.T, dir, name string) string {
	t.Helper()
	if err := report.WriteReport(dir, "v"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// editSummary rewrites dir/summary.json through edit.
func editSummary(t *testing.T, dir string, edit func(*results.Summary)) {
	t.Helper()
	var s results.Summary
	if err := results.ReadJSONFile(filepath.Join(dir, "summary.json"), &s); err != nil {
		t.Fatal(err)
	}
	edit(&s)
	if err := results.WriteJSON(filepath.Join(dir, "summary.json"), s); err != nil {
		t.Fatal(err)
	}
}

func TestReportContent(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(*results.Summary)
		want    []string // in this order in report.html
		wantNot []string
	}{
		{"verdict first, then facts and tables", nil,
			[]string{`id="verdict"`, "The scheduler took", "(all)", "reproduce", "sim compare --scenario light-load --seed 1", `id="runs"`,
				`id="production-traffic"`, "No production traffic in this scenario"},
			[]string{"Multiplier across seeds", "multiplier over seeds", "production lost", "429s 0 → 0"}},
		{"seeds and production",
			func(s *results.Summary) {
				s.Seeds = []uint64{1, 2, 3}
				s.MultiplierAcrossSeeds = []results.MultiplierStat{{Model: "claude-sonnet-4.6", RatioStat: results.RatioStat{Seeds: 3, Mean: 2.5, Low: &[]float64{2.1}[0], High: &[]float64{2.9}[0]}}}
				s.Invocation = &results.Invocation{Command: "compare", Scenario: "my dir/s.yaml", Seeds: 3, Trace: "t.jsonl"}
				s.Runs[1].Production = []results.ProductionStats{{Name: "conv", Model: "gpt-5.5", Failed: 13820, FailedMinutes: 120, OutageMinutes: 98}}
			},
			[]string{`id="verdict"`, "production lost 98 minutes", "2.50× [2.10, 2.90] over 3 seeds (first seed ",
				"sim compare --scenario &#39;my dir/s.yaml&#39; --seed 1 --seeds 3 --trace t.jsonl",
				`id="production-traffic"`, "13,820", `id="multiplier-across-seeds"`, "2.10×"},
			[]string{"No production traffic"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := simtest.Outputs(t)
			if c.edit != nil {
				editSummary(t, dir, c.edit)
			}
			html := reportFile(t, dir, "report.html")
			at := 0
			for _, w := range c.want {
				i := strings.Index(html[at:], w)
				if i < 0 {
					t.Errorf("report.html lacks %q after offset %d (or has it out of order)", w, at)
					continue
				}
				at += i
			}
			for _, w := range c.wantNot {
				if strings.Contains(html, w) {
					t.Errorf("report.html has %q", w)
				}
			}
		})
	}
}

// TestReportRemovesStaleFigures: figures/ holds exactly what this report
// wrote, whatever a previous report left there.
func TestReportRemovesStaleFigures(t *testing.T) {
	dir, _ := simtest.Outputs(t)
	figs := filepath.Join(dir, "figures")
	if err := os.MkdirAll(figs, 0o755); err != nil {
		t.Fatal(err)
	}
	// A file sim does not write there is the user's: the report refuses
	// the folder rather than delete it.
	notes := filepath.Join(figs, "notes.txt")
	if err := os.WriteFile(notes, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteReport(dir, "v"); err == nil || !strings.Contains(err.Error(), "figures/notes.txt") {
		t.Errorf("a user's file in figures/: err %v, want the folder refused naming it", err)
	}
	os.Remove(notes)
	for _, f := range []string{"timeline-other-scenario.png", "timeline-other-scenario.svg"} {
		if err := os.WriteFile(filepath.Join(figs, f), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := report.WriteReport(dir, "v"); err != nil {
		t.Fatal(err)
	}
	written, err := report.WriteFigures(dir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, f := range written {
		want = append(want, filepath.Base(f.PNG), filepath.Base(f.SVG))
	}
	entries, err := os.ReadDir(figs)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(want)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("figures/ (-want +got):\n%s", diff)
	}
}
