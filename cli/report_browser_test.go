package cli

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evalsched/lab/internal/browsertest"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"go.yaml.in/yaml/v3"
)

// probe runs in the rendered report and records on <body data-probe> what
// TestEmbeddedReportsInBrowser checks: the page's width against the
// window's, tables and figure captions sticking out of the page, images
// that did not load, the verdict's text, and headings drawn over another.
const reportProbe = `<script>
window.addEventListener("load", function () {
  var vw = document.documentElement.clientWidth, wide = [], broken = [], overlap = [], shown = [];
  document.querySelectorAll("table, figcaption, p, h1, h2").forEach(function (e) {
    var r = e.getBoundingClientRect(), box = e.closest(".scroll");
    if (!box && r.right > vw + 1) wide.push(e.tagName + ": " + e.textContent.slice(0, 40));
  });
  document.querySelectorAll("img").forEach(function (i) {
    if (!i.complete || i.naturalWidth === 0) broken.push(i.alt); else if (i.getBoundingClientRect().width > 0) shown.push(i.alt);
  });
  var hs = Array.prototype.slice.call(document.querySelectorAll("h1, h2, figcaption"));
  for (var i = 1; i < hs.length; i++) {
    var a = hs[i-1].getBoundingClientRect(), b = hs[i].getBoundingClientRect();
    if (b.top < a.bottom - 1 && b.left < a.right && a.left < b.right) overlap.push(hs[i].textContent.slice(0, 40));
  }
  var v = document.querySelector("#verdict .reading");
  document.body.setAttribute("data-probe", JSON.stringify({page: document.documentElement.scrollWidth, viewport: vw,
    wide: wide, broken: broken, shown: shown, images: document.images.length, overlap: overlap, verdict: v ? v.textContent : ""}));
});
</script>`

// TestEmbeddedReportsInBrowser runs every embedded scenario as sim compare
// does (with all its variants when it has some; studio-week cut to six
// hours), writes its report and renders it in headless Chromium: the page
// no wider than the window, no text sticking out, no heading drawn over
// another, every figure loaded, the trade-off figure exactly when two or
// more runs replayed production traffic, the verdict first and the same
// sentences as headline.json; and a screenshot that decodes and is not
// blank.
func TestEmbeddedReportsInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every embedded scenario")
	}
	bin := browsertest.Chromium(t, false)
	shots := os.Getenv("SIM_REPORT_SHOTS") // keep the screenshots there, to look at them
	for _, name := range scenario.EmbeddedNames() {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			args := []string{"compare", "--scenario", name, "--out", out, "--report"}
			sc, err := scenario.LoadScenario("embedded:" + name)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range sc.VariantNames() {
				args = append(args, "--variant", v)
			}
			if name == "studio-week" {
				// The week cut to its first six hours: the same report, in seconds.
				cut := filepath.Join(dir, "week.yaml")
				data, _ := scenario.EmbeddedYAML(name)
				args = []string{"compare", "--scenario", cut, "--out", out, "--report", "--max-memory", "0"}
				var doc map[string]any
				if err := yaml.Unmarshal(data, &doc); err != nil {
					t.Fatal(err)
				}
				doc["duration"], doc["warmup"] = "6h", "1h"
				delete(doc, "events") // its capacity events come later in the week
				text, err := yaml.Marshal(doc)
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(cut, text, 0o644)
			}
			if _, stderr, code := runSim(t, args...); code != 0 {
				t.Fatalf("sim %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
			}
			var h results.Headline
			readJSON(t, filepath.Join(out, results.HeadlineFile), &h)
			page, err := os.ReadFile(filepath.Join(out, "report.html"))
			if err != nil {
				t.Fatal(err)
			}
			probed := filepath.Join(dir, "probed.html")
			browsertest.WithProbe(t, page, reportProbe, probed)
			flags := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
				"--window-size=1200,2400", "--virtual-time-budget=5000", "--user-data-dir=" + t.TempDir()}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			shot := filepath.Join(dir, "shot.png")
			if shots != "" {
				os.MkdirAll(shots, 0o755)
				shot = filepath.Join(shots, name+".png")
			}
			// One Chromium run dumps the DOM and takes the screenshot (the
			// probe only sets an attribute: the page looks the same); a
			// second launch per scenario cost as much CPU again. Headless
			// Chromium now and then crashes on a loaded machine (a
			// segmentation fault before it draws): a second try.
			var dom []byte
			for try := 1; ; try++ {
				d, msg, err := browsertest.DumpDOM(ctx, bin, append(flags[:len(flags):len(flags)], "--screenshot="+shot), probed)
				if err == nil {
					dom = d
					break
				}
				if try == 2 {
					t.Fatalf("chromium --dump-dom --screenshot: %v\n%s", err, msg)
				}
				t.Logf("chromium --dump-dom --screenshot: %v; trying again", err)
			}
			var got struct {
				Page, Viewport, Images int
				Wide, Broken, Overlap  []string
				Shown                  []string
				Verdict                string
			}
			if err := browsertest.Probe(dom, &got); err != nil {
				t.Fatal(err)
			}
			if got.Page > got.Viewport || len(got.Wide) > 0 {
				t.Errorf("page %d px in a %d px window; sticking out: %q", got.Page, got.Viewport, got.Wide)
			}
			if got.Images == 0 || len(got.Broken) > 0 {
				t.Errorf("%d figures, not loaded: %q", got.Images, got.Broken)
			}
			if len(got.Overlap) > 0 {
				t.Errorf("headings over another: %q", got.Overlap)
			}
			// A quota shared with production: the trade-off figure, with its reading.
			var sum results.Summary
			readJSON(t, filepath.Join(out, "summary.json"), &sum)
			withProduction := 0
			for _, r := range sum.Runs {
				if len(r.Production) > 0 {
					withProduction++
				}
			}
			hasTradeoff := slices.ContainsFunc(got.Shown, func(alt string) bool { return strings.HasPrefix(alt, "Trade-off") })
			if want := withProduction >= 2; hasTradeoff != want || (want && !bytes.Contains(page, []byte("Efficient runs"))) {
				t.Errorf("%d runs with production traffic; trade-off figure shown %v, want %v (figures shown: %q)", withProduction, hasTradeoff, want, got.Shown)
			}
			if want := strings.Join(h.Sentences, " "); strings.Join(strings.Fields(got.Verdict), " ") != strings.Join(strings.Fields(want), " ") || want == "" {
				t.Errorf("the verdict reads %q, headline.json %q", got.Verdict, want)
			}
			if i := bytes.Index(page, []byte(`id="verdict"`)); i < 0 || i > bytes.Index(page, []byte("<table")) {
				t.Error("the verdict is not the report's first section")
			}
			checkScreenshot(t, shot)
		})
	}
}

// checkScreenshot: the screenshot decodes, and at least 2% of its pixels
// are not the white background (text, tables and figures were drawn).
func checkScreenshot(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	b := img.Bounds()
	ink := 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			if r, g, bl, _ := img.At(x, y).RGBA(); r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				ink++
			}
		}
	}
	if share := float64(ink) / float64(b.Dx()*b.Dy()/4); share < 0.02 {
		t.Errorf("screenshot %v is %.1f%% ink: blank?", b.Size(), 100*share)
	}
}
