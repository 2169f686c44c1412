package policies

import (
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// forbidden are the lab's packages production code must not depend on.
var forbidden = []string{
	"github.com/evalsched/lab/sim",
	"github.com/evalsched/lab/workloads",
	"github.com/evalsched/lab/results",
	"github.com/evalsched/lab/scenario",
	"github.com/evalsched/lab/report",
	"github.com/evalsched/lab/lab",
	"github.com/evalsched/lab/cmd",
	"github.com/evalsched/lab/cli",
	"github.com/evalsched/lab/extpolicy",
}

func forbiddenImport(path string) bool {
	for _, f := range forbidden {
		if path == f || strings.HasPrefix(path, f+"/") {
			return true
		}
	}
	return false
}

func TestForbiddenImport(t *testing.T) {
	for path, want := range map[string]bool{
		"github.com/evalsched/lab/sim":           true,
		"github.com/evalsched/lab/sim/gateway":   true,
		"github.com/evalsched/lab/workloads":     true,
		"github.com/evalsched/lab/results/stats": true,
		"github.com/evalsched/lab/cmd/sim":       true,
		"github.com/evalsched/lab/simulate":      false,
		"github.com/evalsched/lab/policies":      false,
		"github.com/google/go-cmp/cmp":           false,
		"github.com/someone/else/sim":            false,
	} {
		if got := forbiddenImport(path); got != want {
			t.Errorf("forbiddenImport(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestNoSimImports parses every file of the package, tests included and
// whatever its build tags, and fails on a direct import of the lab's sim,
// workloads, results or cmd packages.
func TestNoSimImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files found: %v", err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if forbiddenImport(path) {
				t.Errorf("%s: imports %s: policies is production code and must not depend on the simulator side", fset.Position(imp.Pos()), path)
			}
		}
	}
}

// TestNoSimDeps asks the go tool for every package the policies package
// depends on, directly or not, with and without its tests.
func TestNoSimDeps(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found; TestNoSimImports still checks direct imports")
	}
	for _, args := range [][]string{{"list", "-deps", "."}, {"list", "-deps", "-test", "."}} {
		out, err := exec.Command(goTool, args...).Output()
		if err != nil {
			msg := ""
			if ee, ok := err.(*exec.ExitError); ok {
				msg = string(ee.Stderr)
			}
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, msg)
		}
		deps := strings.Fields(string(out))
		if len(deps) == 0 {
			t.Fatalf("go %s listed nothing", strings.Join(args, " "))
		}
		for _, dep := range deps {
			if forbiddenImport(dep) {
				t.Errorf("go %s: policies depends on %s", strings.Join(args, " "), dep)
			}
		}
	}
}
