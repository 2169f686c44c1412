package sim

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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
			if id, isID := sel.X.(*ast.Ident); isID && id.Name == "w" && strings.HasPrefix(sel.Sel.Name, "emit") {
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
		t.Errorf("%d w.emit (or w.emitKind) calls found outside the observers' files: the data path should emit its changes", emits)
	}
}

// TestTypedEmittersMatchEmit (observe.go): each per-call or per-job emitter leaves
// the recorder, the tracer and the event log as emit of the same
// observation does.
// Two runs of one seed end in the same state; one takes each emitter,
// the other emit, and the two recorders and logs are compared after
// every step.
func TestTypedEmittersMatchEmit(t *testing.T) {
	sc := smallScenario(t, nil)
	run := func() *World {
		return runWorld(t, sc, "fixed-lane", Options{Seed: 3, Log: true, Spans: discardSpans{}}, nil)
	}
	typed, generic := run(), run()
	// A live evaluation call, on the provider, of a running job.
	free := map[int32]bool{}
	for _, c := range typed.freeC {
		free[c] = true
	}
	c := int32(-1)
	for i := range typed.calls {
		if cs := &typed.calls[i]; !free[int32(i)] && cs.kind == jobCall && cs.phase == callProvider {
			c = int32(i)
			break
		}
	}
	if c < 0 {
		t.Fatal("no live evaluation call at the run's end: the test compares nothing")
	}
	cs := typed.calls[c]
	m := cs.model
	// A job waiting for a container, for its arrival.
	waiting := int32(-1)
	freeJobs := map[int32]bool{}
	for _, s := range typed.jobs.free {
		freeJobs[s] = true
	}
	for s := int32(0); s < typed.jobs.n; s++ {
		if !freeJobs[s] {
			waiting = s
			break
		}
	}
	if waiting < 0 {
		t.Fatal("no waiting job at the run's end: the test compares no arrival")
	}
	steps := []struct {
		name  string
		typed func(w *World)
		o     obs
	}{
		{"call made, queued", func(w *World) { w.emitCallMade(c, m, 4) }, obs{kind: obsCallMade, id: c, model: m, n: 4}},
		{"call made, not queued", func(w *World) { w.emitCallMade(c, m, notQueued) }, obs{kind: obsCallMade, id: c, model: m, n: notQueued}},
		{"try accepted", func(w *World) { w.emitTry(c, &w.calls[c], accepted, false, 3, 1234.5) }, obs{kind: obsTry, id: c, verdict: accepted, n: 3, x: 1234.5}},
		{"try 429 burned", func(w *World) { w.emitTry(c, &w.calls[c], rejected429, true, notQueued, 0) }, obs{kind: obsTry, id: c, verdict: rejected429, flag: true, n: notQueued}},
		{"try 429", func(w *World) { w.emitTry(c, &w.calls[c], rejected429, false, 2, 0) }, obs{kind: obsTry, id: c, verdict: rejected429, n: 2}},
		{"try outage", func(w *World) { w.emitTry(c, &w.calls[c], rejectedOutage, false, 1, 0) }, obs{kind: obsTry, id: c, verdict: rejectedOutage, n: 1}},
		{"call served", func(w *World) { w.emitCallServed(c, m, 5) }, obs{kind: obsCallServed, id: c, model: m, n: 5}},
		{"call answered", func(w *World) { w.emitCallAnswered(c, &w.calls[c], 4, false, 0) }, obs{kind: obsCallAnswered, id: c, n: 4}},
		{"call answered, settled", func(w *World) { w.emitCallAnswered(c, &w.calls[c], 3, true, 77) }, obs{kind: obsCallAnswered, id: c, n: 3, flag: true, x: 77}},
		{"gateway only, up", func(w *World) { w.emitGatewayOnly(m, true) }, obs{kind: obsGatewayOnly, model: m, flag: true}},
		{"gateway only, down", func(w *World) { w.emitGatewayOnly(m, false) }, obs{kind: obsGatewayOnly, model: m}},
		{"tool step", func(w *World) { w.emitToolStep(cs.owner, 3*Second) }, obs{kind: obsToolStep, id: cs.owner, d: 3 * Second}},
		{"job arrived", func(w *World) { w.emitJobArrived(waiting, false) }, obs{kind: obsJobArrived, id: waiting}},
		{"job arrived, batch new", func(w *World) { w.emitJobArrived(waiting, true) }, obs{kind: obsJobArrived, id: waiting, flag: true}},
		{"job started", func(w *World) { w.emitJobStarted(cs.owner, 7) }, obs{kind: obsJobStarted, id: cs.owner, n: 7}},
		{"job ended", func(w *World) { w.emitJobEnded(cs.owner, 6, false) }, obs{kind: obsJobEnded, id: cs.owner, n: 6}},
		{"job ended, batch ended", func(w *World) { w.emitJobEnded(cs.owner, 5, true) }, obs{kind: obsJobEnded, id: cs.owner, n: 5, flag: true}},
	}
	opts := []cmp.Option{
		cmp.Exporter(func(reflect.Type) bool { return true }),
		cmpopts.IgnoreFields(recorder{}, "eng", "ids", "rows", "mem"),
	}
	for _, s := range steps {
		s.typed(typed)
		o := s.o
		generic.emit(&o)
		if diff := cmp.Diff(generic.rec, typed.rec, opts...); diff != "" {
			t.Fatalf("%s: recorder, emit vs its emitter (-want +got):\n%s", s.name, diff)
		}
		if diff := cmp.Diff(generic.tr, typed.tr, opts...); diff != "" {
			t.Fatalf("%s: tracer, emit vs its emitter (-want +got):\n%s", s.name, diff)
		}
		if !slices.Equal(generic.Log(), typed.Log()) {
			t.Fatalf("%s: event log, emit vs its emitter (-want +got):\n%s", s.name, cmp.Diff(generic.Log(), typed.Log()))
		}
	}
}

// discardSpans takes the tracer's jobs and keeps nothing.
type discardSpans struct{}

func (discardSpans) Job(*results.SpanJob) {}
