package report_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image/png"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evalsched/lab/internal/browsertest"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/sim/simtest"
)

// probe runs in the page after everything loaded and records what the
// test checks on <body data-probe>: page and table widths, images that did
// not load, and script errors.
const probe = `<script>
window.__errors = [];
window.addEventListener("error", function (e) { window.__errors.push(String(e.message || e.target.src)); }, true);
window.addEventListener("load", function () {
  var vw = document.documentElement.clientWidth, wide = [];
  document.querySelectorAll("table").forEach(function (t) {
    var box = t.parentElement.getBoundingClientRect();
    if (box.right > vw + 1) wide.push(t.rows[0] ? t.rows[0].textContent.slice(0, 40) : "?");
  });
  var broken = [], shown = [];
  document.querySelectorAll("img").forEach(function (i) {
    if (!i.complete || i.naturalWidth === 0) broken.push(i.alt); else if (i.getBoundingClientRect().width > 0) shown.push(i.alt);
  });
  document.body.setAttribute("data-probe", JSON.stringify({page: document.documentElement.scrollWidth, viewport: vw,
    wide: wide, broken: broken, shown: shown, images: document.images.length, errors: window.__errors}));
});
</script>`

// TestReportInBrowser renders report.html in headless Chromium at 1200 px:
// no script error or console message, the page no wider than the window
// (tables scroll inside their box), every image loads, and the trade-off
// figure is shown (the comparison given production traffic); and, from
// the HTML, every table is inside a scrolling box and every image is a PNG
// that decodes.
func TestReportInBrowser(t *testing.T) {
	bin := browsertest.Chromium(t, true)
	dir, _ := simtest.Outputs(t)
	editSummary(t, dir, func(s *results.Summary) {
		for i := range s.Runs {
			s.Runs[i].Production = []results.ProductionStats{{Name: "prod", Model: s.Runs[i].Lanes[0].Model, Arrived: 100, Answered: 90,
				Rejected429: int64(10 * i), Failed: 10, OutageThreshold: 0.95}}
		}
	})
	page := reportFile(t, dir, "report.html")
	checkStatic(t, page)
	probed := filepath.Join(t.TempDir(), "probed.html")
	browsertest.WithProbe(t, []byte(page), probe, probed)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dom, stderr, err := browsertest.DumpDOM(ctx, bin, []string{"--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,900",
		"--virtual-time-budget=5000", "--enable-logging=stderr", "--v=0", "--user-data-dir=" + t.TempDir()}, probed)
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr)
	}
	for _, line := range strings.Split(string(stderr), "\n") {
		if strings.Contains(line, "CONSOLE") {
			t.Errorf("console message: %s", line)
		}
	}
	var got struct {
		Page, Viewport, Images      int
		Wide, Broken, Shown, Errors []string
	}
	if err := browsertest.Probe(dom, &got); err != nil {
		t.Fatalf("%v; chromium said:\n%s", err, stderr)
	}
	if got.Page > got.Viewport || len(got.Wide) > 0 {
		t.Errorf("page %d px wide in a %d px window; tables sticking out: %q", got.Page, got.Viewport, got.Wide)
	}
	if len(got.Broken) > 0 || got.Images == 0 {
		t.Errorf("%d images, not loaded: %q", got.Images, got.Broken)
	}
	if len(got.Errors) > 0 {
		t.Errorf("script errors: %q", got.Errors)
	}
	if !slices.ContainsFunc(got.Shown, func(alt string) bool { return strings.HasPrefix(alt, "Trade-off") }) {
		t.Errorf("no trade-off figure shown; figures shown: %q", got.Shown)
	}
}

// checkStatic checks the HTML itself: every table in a box that scrolls,
// every image a data: URI holding a PNG that decodes.
func checkStatic(t *testing.T, page string) {
	t.Helper()
	if !regexp.MustCompile(`\.scroll \{[^}]*max-width: 100%;[^}]*overflow: auto;`).MatchString(page) {
		t.Error(`report.html's .scroll box does not keep tables within the page (max-width: 100%; overflow: auto)`)
	}
	tables := strings.Count(page, "<table")
	boxed := len(regexp.MustCompile(`<div class="scroll"><table`).FindAllString(page, -1))
	if tables == 0 || boxed != tables {
		t.Errorf("%d of %d tables inside a scrolling box", boxed, tables)
	}
	imgs := regexp.MustCompile(`<img src="([^"]*)"`).FindAllStringSubmatch(page, -1)
	for i, m := range imgs {
		b64, ok := strings.CutPrefix(m[1], "data:image/png;base64,")
		if !ok {
			t.Errorf("image %d is not an inlined PNG: %.60s", i, m[1])
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(b64)
		if err == nil {
			_, err = png.Decode(bytes.NewReader(raw))
		}
		if err != nil {
			t.Errorf("image %d: %v", i, err)
		}
	}
}
