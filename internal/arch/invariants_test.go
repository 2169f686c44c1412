package arch

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestInvariantsNameRealTests: every test docs/concepts/invariants.md
// names exists, in the file the row gives.
func TestInvariantsNameRealTests(t *testing.T) {
	doc, err := os.ReadFile("../../docs/concepts/invariants.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| (I\\d+) \\|.*\\| (.*) \\|$")
	cite := regexp.MustCompile("((?:`Test\\w+`(?:, )?)+) \\(([\\w/._]+)\\)")
	name := regexp.MustCompile("`(Test\\w+)`")
	rows := row.FindAllStringSubmatch(string(doc), -1)
	if len(rows) < 10 {
		t.Fatalf("found %d invariants", len(rows))
	}
	for _, r := range rows {
		cites := cite.FindAllStringSubmatch(r[2], -1)
		if len(cites) == 0 {
			t.Errorf("%s names no test", r[1])
		}
		for _, c := range cites {
			src, err := os.ReadFile(filepath.Join("../..", c[2]))
			if err != nil {
				t.Errorf("%s: %v", r[1], err)
				continue
			}
			for _, n := range name.FindAllStringSubmatch(c[1], -1) {
				if !strings.Contains(string(src), "func "+n[1]+"(") {
					t.Errorf("%s: %s is not in %s", r[1], n[1], c[2])
				}
			}
		}
	}
}
