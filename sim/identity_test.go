package sim

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalsched/lab/scenario"
)

// TestDecisionsIgnoreRecorder: the recorder observes and never writes back.
// A run with the recorder's fairness bookkeeping switched off makes the
// same decisions: every job and call event in the log (arrivals, starts,
// tries, finishes, grading jobs in their parents' projects) is the same.
// Were job identity read back from the recorder, the blind run would lose
// its grading jobs' projects and batches.
func TestDecisionsIgnoreRecorder(t *testing.T) {
	for _, policy := range scenario.PolicyNames() {
		for _, named := range []bool{false, true} {
			name := policy
			if named {
				name += "/name-lookup"
			}
			t.Run(name, func(t *testing.T) {
				sc := smallScenario(t, nil)
				run := func(blind bool) *World {
					return runWorld(t, sc, policy, Options{Seed: 1, Log: true}, func(w *World) {
						w.rec.blind = blind
						if named {
							w.ids.uniqueNames = false
						}
					})
				}
				seeing, blind := run(false), run(true)
				grading := 0
				for _, r := range seeing.Log() {
					if r.Grading && r.Event == LogJobArrive {
						grading++
					}
				}
				if grading == 0 {
					t.Fatal("no grading job arrived: the test checks no identity a job inherits")
				}
				// slices.Equal first: cmp.Diff over the whole log by
				// reflection was most of the test's CPU.
				if !slices.Equal(seeing.Log(), blind.Log()) {
					t.Errorf("event log, recorder observing vs blind (-want +got):\n%s", cmp.Diff(seeing.Log(), blind.Log()))
				}
				if diff := cmp.Diff(seeing.Counts(), blind.Counts()); diff != "" {
					t.Errorf("counts (-want +got):\n%s", diff)
				}
				if len(blind.Fairness().Windows) != 0 {
					t.Error("the blind run measured fairness windows: the recorder was not blind")
				}
			})
		}
	}
}

// TestWorldReadsNoRecorderState: outside the recorder's own files
// (recorder*.go, fairness*.go), the world hands the recorder what happened
// and never reads its state back: a recorder method is called only as a
// statement (its result, if any, unused) and a recorder field is only
// written, except the few reads listed here, none of which feeds a decision.
func TestWorldReadsNoRecorderState(t *testing.T) {
	allowed := map[string]string{
		"logOn":  "whether to build a log record at all",
		"counts": "the event budget's error message",
		"prices": "the run's output says whether it bills",
		"names":  "the span sink (--otlp, an output) names a job's model",
	}
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, "recorder") || strings.HasPrefix(name, "fairness") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		// The recorder selections that are written (assigned, incremented)
		// or called as a statement.
		ok := map[ast.Node]bool{}
		markLHS := func(e ast.Expr) {
			for {
				switch x := e.(type) {
				case *ast.SelectorExpr:
					ok[x] = true
					e = x.X
				case *ast.IndexExpr:
					e = x.X
				default:
					return
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch s := n.(type) {
			case *ast.AssignStmt:
				for _, l := range s.Lhs {
					markLHS(l)
				}
			case *ast.IncDecStmt:
				markLHS(s.X)
			case *ast.ExprStmt:
				if c, isCall := s.X.(*ast.CallExpr); isCall {
					if sel, isSel := c.Fun.(*ast.SelectorExpr); isSel {
						ok[sel] = true
					}
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			sel, isSel := n.(*ast.SelectorExpr)
			if !isSel {
				return true
			}
			inner, isSel := sel.X.(*ast.SelectorExpr)
			if !isSel || inner.Sel.Name != "rec" {
				return true
			}
			checked++
			if !ok[sel] && allowed[sel.Sel.Name] == "" {
				t.Errorf("%s: the world reads recorder state rec.%s", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("%d recorder selections found in the world's files: the check found nothing to check", checked)
	}
}
