package report_test

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evalsched/lab/report"
	"github.com/evalsched/lab/sim/simtest"
)

// The only URL an SVG may carry is its namespace; report.html inlines PNGs,
// but an inlined SVG would bring these along.
var svgNamespaces = regexp.MustCompile(`xmlns(:\w+)?="http://www\.w3\.org/(2000/svg|1999/xlink)"`)

// checkSelfContained fails if html refers to anything outside itself.
func checkSelfContained(t *testing.T, html string) {
	t.Helper()
	rest := svgNamespaces.ReplaceAllString(html, "")
	for _, bad := range []string{"http://", "https://", "//cdn", "url(", "@import", "<link", "<script"} {
		if i := strings.Index(rest, bad); i >= 0 {
			t.Errorf("report.html has %q: …%s…", bad, rest[max(0, i-60):min(len(rest), i+60)])
		}
	}
	for _, m := range regexp.MustCompile(`(?:src|href)="([^"]*)"`).FindAllStringSubmatch(rest, -1) {
		if !strings.HasPrefix(m[1], "data:image/png;base64,") && !strings.HasPrefix(m[1], "#") {
			t.Errorf("report.html refers to %q", m[1])
		}
	}
}

func TestWriteReportCompare(t *testing.T) {
	dir, _ := simtest.Outputs(t)
	if err := report.WriteReport(dir, "sim test-1.2.3"); err != nil {
		t.Fatal(err)
	}
	figs, err := os.ReadDir(filepath.Join(dir, "figures"))
	if err != nil {
		t.Fatal(err)
	}
	var pngs []string
	for _, f := range figs {
		if strings.HasSuffix(f.Name(), ".png") {
			pngs = append(pngs, strings.TrimSuffix(f.Name(), ".png"))
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	html := string(data)
	checkSelfContained(t, html)
	for _, want := range []string{"<!DOCTYPE html>", "sim test-1.2.3", "light-load", "Per-lane comparison", "Fairness", "Convergence: scheduler (new)",
		"gpt-5.5", "(all)", "multiplier"} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	// Every figure embedded, as a PNG that decodes.
	imgs := regexp.MustCompile(`<figure id="fig-([^"]+)">\s*<img src="data:image/png;base64,([^"]+)"`).FindAllStringSubmatch(html, -1)
	if len(imgs) != len(pngs) || len(imgs) == 0 {
		t.Errorf("%d images embedded, %d figures written", len(imgs), len(pngs))
	}
	embedded := map[string]bool{}
	for _, m := range imgs {
		embedded[m[1]] = true
		raw, err := base64.StdEncoding.DecodeString(m[2])
		if err != nil {
			t.Fatalf("figure %s: %v", m[1], err)
		}
		if _, err := png.Decode(bytes.NewReader(raw)); err != nil {
			t.Errorf("figure %s: %v", m[1], err)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range pngs {
		if !embedded[name] {
			t.Errorf("figure %s not embedded in report.html", name)
		}
		if !bytes.Contains(md, []byte("](figures/"+name+".png)")) {
			t.Errorf("report.md does not reference figures/%s.png", name)
		}
	}
	if !bytes.Contains(md, []byte("| model | multiplier | token multiplier | old jobs/h | new jobs/h |")) {
		t.Error("report.md lacks the comparison table")
	}
}

func TestWriteReportSingleRun(t *testing.T) {
	_, dir := simtest.Outputs(t)
	if err := report.WriteReport(dir, "v"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	checkSelfContained(t, string(data))
	if !strings.Contains(string(data), "Lanes: scheduler") || strings.Contains(string(data), "Per-lane comparison") {
		t.Error("a single run's report should have the run's lane table and no comparison")
	}
}

func TestWriteReportDegenerate(t *testing.T) {
	for name, setup := range degenerateCases() {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			setup(t, dir)
			simtest.Seal(t, dir)
			if err := report.WriteReport(dir, ""); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"report.html", "report.md"} {
				data, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil || len(data) == 0 {
					t.Fatalf("%s: %v (%d bytes)", f, err, len(data))
				}
				if f == "report.html" {
					checkSelfContained(t, string(data))
				}
			}
		})
	}
}

// TestWriteReportMissingDir: a directory without outputs is reported at
// the path the user gave (not at a staging directory beside it), and
// nothing is left behind.
func TestWriteReportMissingDir(t *testing.T) {
	parent := t.TempDir()
	for _, name := range []string{"nope", "empty"} {
		dir := filepath.Join(parent, name)
		if name == "empty" {
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		err := report.WriteReport(dir, "v")
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		if want := filepath.Join(dir, "summary.json"); !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "partial") {
			t.Errorf("%s: error %q, want one naming %s", name, err, want)
		}
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 || entries[0].Name() != "empty" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("left %v in the parent, want only the empty directory", names)
	}
}
