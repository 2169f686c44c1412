package sim

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// observerFile says whether a file is one of the observers' own: the
// recorder (recorder*.go, fairness*.go), the tracer (spans.go), the event
// log (eventlog.go) and the stream that feeds them (observe.go).
func observerFile(name string) bool {
	return strings.HasPrefix(name, "recorder") || strings.HasPrefix(name, "fairness") ||
		slices.Contains([]string{"spans.go", "eventlog.go", "observe.go"}, name)
}

// TestObserversFedOnlyByEmit (observe.go): outside the observers' own
// files, the world touches an observer (w.rec, w.tr, w.log) only in the
// functions listed here, for what they say: it hands the observers what
// happened through emit, and never calls one, writes one's state or reads
// back anything that could feed a decision.
func TestObserversFedOnlyByEmit(t *testing.T) {
	allowed := map[string]string{
		"NewWorld rec.ids":    "wiring: the recorder reads batch names in the world's identity table",
		"NewWorld tr":         "wiring: the tracer is made when Options.Spans is set",
		"NewWorld log":        "wiring: the event log is made when Options.Log is set",
		"run rec.counts":      "the event budget's error message",
		"run rec.flush":       "the run's end brings the recorder's integrals up to it",
		"Measured rec.prices": "the run's output says whether it bills",
	}
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	emits := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || observerFile(name) {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		// outer marks the selections already judged as part of a longer one.
		outer := map[ast.Node]bool{}
		fn := ""
		ast.Inspect(f, func(n ast.Node) bool {
			if d, isFunc := n.(*ast.FuncDecl); isFunc {
				fn = d.Name.Name
			}
			sel, isSel := n.(*ast.SelectorExpr)
			if !isSel || outer[sel] {
				return true
			}
			if id, isID := sel.X.(*ast.Ident); isID && id.Name == "w" && sel.Sel.Name == "emit" {
				emits++
			}
			key := ""
			if inner, isSel := sel.X.(*ast.SelectorExpr); isSel {
				if id, isID := inner.X.(*ast.Ident); isID && id.Name == "w" && inner.Sel.Name == "rec" {
					key = "rec." + sel.Sel.Name
					outer[inner] = true
				}
			}
			if id, isID := sel.X.(*ast.Ident); isID && id.Name == "w" && slices.Contains([]string{"rec", "tr", "log"}, sel.Sel.Name) && key == "" {
				key = sel.Sel.Name
			}
			if key == "" {
				return true
			}
			key = fn + " " + key
			seen[key] = true
			if allowed[key] == "" {
				t.Errorf("%s: the world touches an observer (%s: w.%s) instead of emitting what happened", fset.Position(sel.Pos()), fn, key[len(fn)+1:])
			}
			return true
		})
	}
	for key, why := range allowed {
		if !seen[key] {
			t.Errorf("%q is allowed (%s) but never found: the check may be looking at nothing", key, why)
		}
	}
	if emits < 15 {
		t.Errorf("%d w.emit calls found outside the observers' files: the data path should emit its changes", emits)
	}
}
