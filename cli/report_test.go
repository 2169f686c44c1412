package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReproduceLine runs the command the report's reproduce line names and
// checks it writes the same summary.json.
func TestReproduceLine(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "jobs.jsonl")
	if _, stderr, code := runSim(t, "trace", "gen", "--scenario", "testdata/small.yaml", "--seed", "5", "--out", trace); code != 0 {
		t.Fatalf("trace gen: exit %d: %s", code, stderr)
	}
	cases := []struct {
		name string
		args []string
	}{
		{"compare with seeds", []string{"compare", "--scenario", "testdata/small.yaml", "--seed", "3", "--seeds", "2"}},
		{"run a policy", []string{"run", "--scenario", "testdata/small.yaml", "--policy", "scheduler", "--seed", "4"}},
		{"compare a trace", []string{"compare", "--scenario", "testdata/small.yaml", "--seed", "5", "--trace", trace}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			first := filepath.Join(dir, "first"+string(rune('a'+i)))
			if _, stderr, code := runSim(t, append(c.args, "--out", first, "--report")...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			md, err := os.ReadFile(filepath.Join(first, "report.md"))
			if err != nil {
				t.Fatal(err)
			}
			m := regexp.MustCompile(`(?m)^- \*\*reproduce\*\*: (.*)$`).FindSubmatch(md)
			if m == nil {
				t.Fatalf("report.md has no reproduce line")
			}
			// report.md escapes Markdown; the test scenario and trace paths need none but "_".
			args := strings.Fields(strings.ReplaceAll(string(m[1]), `\_`, "_"))
			if len(args) < 2 || args[0] != "sim" {
				t.Fatalf("reproduce line %q does not start with sim", m[1])
			}
			again := filepath.Join(dir, "again"+string(rune('a'+i)))
			if _, stderr, code := runSim(t, append(args[1:], "--out", again)...); code != 0 {
				t.Fatalf("%s: exit %d: %s", m[1], code, stderr)
			}
			want, err := os.ReadFile(filepath.Join(first, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(again, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, got) {
				t.Errorf("%s wrote a different summary.json (-want +got):\n%s", m[1], cmp.Diff(string(want), string(got)))
			}
		})
	}
}

// TestSeedsReportFiguresNameTheirSeed: a report over several seeds draws
// its figures from the first seed's runs; each says so in its title, its
// caption and on the image (so throughput.png is not the one-seed report's
// byte for byte), and the throughput figure's title carries the total's
// multiplier over the seeds beside the first seed's, as the verdict does.
// Before, throughput.png over 4 seeds was the one-seed file, titled 8.13×
// under a verdict of 4.7× [1.5×, 15×].
func TestSeedsReportFiguresNameTheirSeed(t *testing.T) {
	dir := t.TempDir()
	one, two := filepath.Join(dir, "one"), filepath.Join(dir, "two")
	for _, c := range []struct {
		out, seeds string
	}{{one, "1"}, {two, "2"}} {
		if _, stderr, code := runSim(t, "compare", "--scenario", "testdata/small.yaml", "--seed", "3", "--seeds", c.seeds, "--out", c.out, "--report"); code != 0 {
			t.Fatalf("--seeds %s: exit %d: %s", c.seeds, code, stderr)
		}
	}
	figures := func(out string) map[string][2]string { // file → title, caption
		md, err := os.ReadFile(filepath.Join(out, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][2]string{}
		re := regexp.MustCompile(`(?m)^### (.*)\n\n!\[.*\]\((figures/[^)]+)\)\n\n(.*)$`)
		for _, m := range re.FindAllStringSubmatch(string(md), -1) {
			unescape := strings.NewReplacer(`\[`, "[", `\]`, "]").Replace // report.md escapes brackets
			got[m[2]] = [2]string{unescape(m[1]), unescape(m[3])}
		}
		if len(got) == 0 {
			t.Fatalf("%s/report.md lists no figure", out)
		}
		return got
	}
	const note = "seed 3 of seeds 3–4"
	for file, tc := range figures(two) {
		if !strings.Contains(tc[0], note) || !strings.Contains(tc[1], note) {
			t.Errorf("%s: title %q, caption %q: want both to name %q", file, tc[0], tc[1], note)
		}
	}
	for file, tc := range figures(one) {
		if strings.Contains(tc[0], "seeds") || strings.Contains(tc[1], "One seed shown") {
			t.Errorf("one-seed report's %s names seeds: %q", file, tc[0])
		}
	}
	a, errA := os.ReadFile(filepath.Join(one, "figures", "throughput.png"))
	b, errB := os.ReadFile(filepath.Join(two, "figures", "throughput.png"))
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if bytes.Equal(a, b) {
		t.Error("throughput.png over 2 seeds is the one-seed report's byte for byte")
	}
	var s struct {
		MultiplierAcrossSeeds []struct {
			Model string   `json:"model"`
			Mean  float64  `json:"mean"`
			Low   *float64 `json:"ci95_low"`
			High  *float64 `json:"ci95_high"`
		} `json:"multiplier_across_seeds"`
	}
	readJSON(t, filepath.Join(two, "summary.json"), &s)
	for _, m := range s.MultiplierAcrossSeeds {
		if m.Model == "(all)" && m.Low != nil && m.High != nil {
			want := fmt.Sprintf("%s [%s, %s] over 2 seeds", timesText(m.Mean), timesText(*m.Low), timesText(*m.High))
			if title := figures(two)["figures/throughput.png"][0]; !strings.Contains(title, want) {
				t.Errorf("throughput title %q lacks the total over seeds %q", title, want)
			}
		}
	}
}

// timesText writes a multiplier as the report does: two decimals.
func timesText(x float64) string {
	return fmt.Sprintf("%.2f×", x) // two decimals, as the tables print a multiplier
}

// TestManyVariantReportReads: the 14-variant incident report says once
// what is the same for every run (the runs whose limits never moved share
// one convergence section; there were 14 identical ones) and counts its
// lanes in English ("the 1 busiest lanes … and the other 0 lanes" was).
func TestManyVariantReportReads(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"compare", "--scenario", "incident-0214", "--out", out, "--report"}
	variants := []string{"no-guard", "separate-org", "virtual-key", "virtual-key-pool-binds", "worker-cap", "circuit-breaker", "self-throttle",
		"eval-at-1400", "fixed-reset", "fit-admission", "reserve-production", "reserve-borrow", "graded", "graded-batch"}
	for _, v := range variants {
		args = append(args, "--variant", v)
	}
	if _, stderr, code := runSim(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(md)
	if n := strings.Count(text, "No model's limit moved"); n != 1 {
		t.Errorf("report.md says %d times that no limit moved, want once", n)
	}
	// Every variant is named in the one section.
	m := regexp.MustCompile(`No model's limit moved in any of these runs[^:]*: (.*)\.`).FindStringSubmatch(text)
	if m == nil {
		t.Fatal("no merged convergence section")
	}
	for _, v := range variants {
		if !strings.Contains(m[1], v) {
			t.Errorf("the merged section does not name %s: %q", v, m[1])
		}
	}
	for _, bad := range []*regexp.Regexp{regexp.MustCompile(`\b1 busiest lanes\b`), regexp.MustCompile(`\bother 0 lanes\b`),
		regexp.MustCompile(`\b1 (more )?lanes\b`), regexp.MustCompile(`\(1 lanes\)`)} {
		if loc := bad.FindStringIndex(text); loc != nil {
			t.Errorf("report.md: %q", text[max(0, loc[0]-60):min(len(text), loc[1]+20)])
		}
	}
}
