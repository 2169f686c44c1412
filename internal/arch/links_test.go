package arch

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocLinksResolve: every relative link of the README and the docs
// tree names a file that exists (anchors are not checked).
func TestDocLinksResolve(t *testing.T) {
	root := "../.."
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	pages := docPages(root)
	checked := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			checked++
			if _, err := os.Stat(filepath.Join(filepath.Dir(page), target)); err != nil {
				t.Errorf("%s: link to %s: %v", page, m[1], err)
			}
		}
	}
	if checked < 30 {
		t.Fatalf("only %d links checked: the walk missed the docs", checked)
	}
}

// TestDocPathsExist: every repository file a page names in its text (a
// command's argument such as `examples/tune.yaml`, not only a link) is
// there, so a tour command cannot name a file that has moved.
func TestDocPathsExist(t *testing.T) {
	root := "../.."
	path := regexp.MustCompile(`(?:^|[\s\x60(])((?:examples|scenario/scenarios|notebooks|bench|cli/testdata|workloads/testdata|results/baselines)/[A-Za-z0-9_./-]+\.(?:yaml|yml|sh|py|ipynb|json|jsonl|csv|gz))`)
	pages := docPages(root)
	checked := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range path.FindAllStringSubmatch(string(text), -1) {
			checked++
			if _, err := os.Stat(filepath.Join(root, m[1])); err != nil {
				t.Errorf("%s names %s, which is not in the repository", page, m[1])
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d paths checked: the pattern missed the docs", checked)
	}
}

// docPages are the README, bench/README.md and every page under docs/.
func docPages(root string) []string {
	pages := []string{filepath.Join(root, "README.md"), filepath.Join(root, "bench", "README.md")}
	filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			pages = append(pages, p)
		}
		return nil
	})
	return pages
}
