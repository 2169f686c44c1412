package arch

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/evalsched/lab"

// allowed is each top package's arrows (see doc.go).
var allowed = map[string][]string{
	"cmd/sim":   {"cli"},
	"cli":       {"lab", "predict", "studies", "report", "sim", "scenario", "results", "workloads", "extpolicy", "policies"},
	"studies":   {"predict", "sim", "scenario", "results"},
	"predict":   {"sim", "scenario", "results", "workloads", "policies"},
	"extpolicy": {"policies"},
	"lab":       {"sim", "scenario", "results"},
	"report":    {"results"},
	"sim":       {"scenario", "results", "policies", "workloads"},
	"scenario":  {"policies", "workloads"},
	"results":   {},
	"workloads": {},
	"policies":  {},
}

// testSupport are packages only tests may import.
var testSupport = []string{"scenario/scenariotest", "sim/simtest"}

// owner is the top package whose arrows a package dir follows, and whether
// the dir is a sub-package of it.
func owner(dir string) (top string, sub bool) {
	for d := dir; d != "." && d != "/"; d = path.Dir(d) {
		if _, ok := allowed[d]; ok {
			return d, d != dir
		}
	}
	return "", false
}

// mayImport says whether package dir may import package dep (both module
// relative).
func mayImport(dir, dep string) bool {
	if strings.HasPrefix(dep, "internal/") {
		return true
	}
	top, sub := owner(dir)
	if top == "" {
		return false
	}
	if sub && (dep == top || strings.HasPrefix(dep, top+"/")) {
		return true
	}
	if dep == top || strings.HasPrefix(dep, top+"/") {
		return dir != top // a package's own sub-packages: test support only
	}
	depTop, _ := owner(dep)
	return slices.Contains(allowed[top], depTop)
}

func TestMayImport(t *testing.T) {
	for _, tc := range []struct {
		dir, dep string
		want     bool
	}{
		{"cmd/sim", "lab", false},
		{"cmd/sim", "cli", true},
		{"cli", "lab", true},
		{"cli", "extpolicy", true},
		{"extpolicy", "policies", true},
		{"extpolicy", "scenario", false},
		{"extpolicy", "sim", false},
		{"scenario", "extpolicy", false},
		{"lab", "report", false},
		{"report", "sim", false},
		{"report", "results", true},
		{"results", "sim", false},
		{"sim", "lab", false},
		{"scenario", "sim", false},
		{"scenario", "results", false},
		{"policies", "workloads", false},
		{"policies", "internal/ring", true},
		{"sim/simtest", "sim", true},
		{"sim/simtest", "results", true},
		{"sim/simtest", "report", false},
		{"workloads/agentlog", "workloads", true},
		{"workloads/agentlog", "sim", false},
	} {
		if got := mayImport(tc.dir, tc.dep); got != tc.want {
			t.Errorf("mayImport(%q, %q) = %v, want %v", tc.dir, tc.dep, got, tc.want)
		}
	}
}

// TestArrows parses every Go file of the module (tests included, whatever
// their build tags) and fails on an import the arrows do not allow; a
// non-test file importing a test-support package fails too. Tests may
// import what their package may, the test-support packages, and (as
// external tests) their own package.
func TestArrows(t *testing.T) {
	root := "../.."
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (n == "testdata" || strings.HasPrefix(n, ".") || n == "examples") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, "internal/") {
			return nil // internal packages are leaves, checked below
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatalf("parse %s: %v", p, err)
		}
		isTest := strings.HasSuffix(p, "_test.go")
		for _, imp := range f.Imports {
			dep := strings.Trim(imp.Path.Value, `"`)
			if !strings.HasPrefix(dep, module+"/") {
				continue
			}
			dep = strings.TrimPrefix(dep, module+"/")
			checked++
			support := slices.Contains(testSupport, dep)
			switch {
			case support && !isTest && !slices.Contains(testSupport, rel):
				t.Errorf("%s: a non-test file imports the test-support package %s", p, dep)
			case isTest && (support || dep == rel):
			case !mayImport(rel, dep):
				t.Errorf("%s: %s may not import %s (arrows in internal/arch/doc.go)", p, rel, dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("only %d lab imports found: the walk missed the module", checked)
	}
}

// TestInternalIsLeaf: internal packages import nothing of the lab but other
// internal packages.
func TestInternalIsLeaf(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{join .Imports " "}}`, module+"/internal/...").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imps, _ := strings.Cut(line, ":")
		for _, imp := range strings.Fields(imps) {
			if strings.HasPrefix(imp, module+"/") && !strings.HasPrefix(imp, module+"/internal/") {
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
}

// TestSimLinksNoPlotOrOptimiser: the simulator's dependencies hold no
// plotting library, no optimiser and no HTML templates. (gonum/stat links
// gonum/optimize/convex/lp, a linear-program solver, which is not the
// optimiser tune uses.)
func TestSimLinksNoPlotOrOptimiser(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"/sim").Output()
	if err != nil {
		t.Fatal(err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, module+"/policies") {
		t.Fatalf("go list -deps sim does not list policies: %v", deps)
	}
	for _, d := range deps {
		if strings.HasPrefix(d, "gonum.org/v1/plot") || d == "gonum.org/v1/gonum/optimize" || d == "html/template" {
			t.Errorf("sim links %s", d)
		}
	}
}
