package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/workloads"
)

// drawModes are the ways a run may draw its jobs' agent draws, against the
// first: every turn drawn inline when the job reaches it, as before draws.go.
var drawModes = []struct {
	name string
	opts Options
}{
	{"none-ahead", Options{DrawAhead: -1, Draws: DrawInline}},
	{"default-helper", Options{Draws: DrawHelper}},
	{"default-inline", Options{Draws: DrawInline}},
	{"one-call-helper", Options{DrawAhead: 1, Draws: DrawHelper}},   // every turn past the first drawn inline
	{"seven-calls-helper", Options{DrawAhead: 7, Draws: DrawHelper}}, // jobs cut mid-way
	{"three-calls-inline", Options{DrawAhead: 3, Draws: DrawInline}},
	{"auto", Options{}},
}

// drawOutputs is what a run puts out: its summary and every series and
// batch row, as bytes.
func drawOutputs(t *testing.T, sc *Scenario, policy string, opts Options, source func() workloads.Source) []byte {
	t.Helper()
	if source != nil {
		opts.Source = source()
	}
	rows := &results.MemoryRows{}
	w := runWorld(t, sc, policy, opts, func(w *World) { w.StreamRows(rows) })
	data, err := json.Marshal(struct {
		Summary results.Run
		Rows    *results.MemoryRows
	}{results.Summarize(w.Measured()), rows})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestDrawAheadIdentical: where and how far ahead a run draws its jobs'
// agent draws never changes its outputs. The embedded scenarios (cut to a
// few hours) under both policies, and a job stream of explicit call plans,
// run with every turn drawn when the job reaches it and with the draws
// made ahead, on a helper or inline, of whole jobs or cut after 1, 3 or 7
// calls, and with GOMAXPROCS 1; summaries and rows must be byte-identical.
func TestDrawAheadIdentical(t *testing.T) {
	embedded := func(name string) func(*testing.T) *Scenario {
		return func(t *testing.T) *Scenario {
			sc, err := LoadScenario("embedded:" + name)
			if err != nil {
				t.Fatal(err)
			}
			return sc
		}
	}
	cases := []struct {
		name   string
		load   func(*testing.T) *Scenario
		cut    time.Duration
		source func(sc *Scenario) func() workloads.Source
	}{
		{name: "default", load: embedded("default"), cut: time.Hour},
		{name: "studio-week", load: embedded("studio-week"), cut: 90 * time.Minute},
		{name: "incident-0214", load: embedded("incident-0214")},
		{name: "controllers", load: embedded("controllers"), cut: 2 * time.Hour},
		{name: "light-load", load: embedded("light-load"), cut: time.Hour},
		{name: "light-load-plans", load: embedded("light-load"), cut: time.Hour, source: planSource},
		{name: "azure-production", load: loadAzureProduction, cut: time.Hour}, // skipped without ../shared/traces
	}
	for _, c := range cases {
		for _, policy := range PolicyNames {
			t.Run(c.name+"/"+policy, func(t *testing.T) {
				sc := c.load(t)
				if c.cut > 0 && sc.Duration > c.cut {
					sc.Duration = c.cut
				}
				var source func() workloads.Source
				if c.source != nil {
					source = c.source(sc)
				}
				want := drawOutputs(t, sc, policy, drawModes[0].opts, source)
				for _, m := range drawModes[1:] {
					if got := drawOutputs(t, sc, policy, m.opts, source); !bytes.Equal(want, got) {
						t.Errorf("%s: outputs differ from %s (%d vs %d bytes)", m.name, drawModes[0].name, len(got), len(want))
					}
				}
				prev := runtime.GOMAXPROCS(1)
				got := drawOutputs(t, sc, policy, Options{DrawAhead: 2, Draws: DrawHelper}, source)
				runtime.GOMAXPROCS(prev)
				if !bytes.Equal(want, got) {
					t.Errorf("helper with GOMAXPROCS=1: outputs differ from %s", drawModes[0].name)
				}
			})
		}
	}
}

// planSource replays the scenario's generated jobs with every third one
// following an explicit call plan of one to three turns (a job trace's
// form), so the plans' draws go the same way.
func planSource(sc *Scenario) func() workloads.Source {
	return func() workloads.Source {
		gen, err := workloads.NewGenerator(sc.Workload, sc.Catalogue(), sc.Duration, 1)
		if err != nil {
			panic(err)
		}
		return &planned{gen: gen}
	}
}

type planned struct {
	gen *workloads.Generator
	n   int
}

func (p *planned) Next() (workloads.Job, bool) {
	job, ok := p.gen.Next()
	if ok && p.n%3 == 0 {
		plan := &workloads.CallPlan{}
		for turn := range 1 + p.n%4 {
			pt := workloads.PlanTurn{Tool: time.Duration(turn+1) * 7 * time.Second}
			for k := range 1 + (p.n+turn)%3 {
				pt.Calls = append(pt.Calls, workloads.PlanCall{In: 1000 * (k + 1), Out: 200 + 50*turn})
			}
			plan.Turns = append(plan.Turns, pt)
		}
		job.Behaviour = workloads.PlanBehaviour(plan)
	}
	p.n++
	return job, ok
}

func (p *planned) Err() error { return p.gen.Err() }

// TestDrawHelperStops: a run's helper goroutine is gone when the run ends.
func TestDrawHelperStops(t *testing.T) {
	sc := smallScenario(t, func(sc *Scenario) { sc.Duration = 30 * time.Minute })
	before := runtime.NumGoroutine()
	for i := range 3 {
		runWorld(t, sc, "scheduler", Options{Seed: uint64(i + 1), Draws: DrawHelper}, nil)
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after three runs, %d before: a helper outlived its run", n, before)
	}
}

// TestDrawAdjust: the helper runs only while fewer runs than cores are in
// flight (DrawAuto), always with DrawHelper, never with DrawInline.
func TestDrawAdjust(t *testing.T) {
	defer runsInFlight.Store(runsInFlight.Load())
	for _, c := range []struct {
		mode       DrawMode
		cores      int
		inFlight   int32
		wantHelper bool
	}{
		{DrawAuto, 2, 1, true},
		{DrawAuto, 2, 2, false},
		{DrawAuto, 4, 3, true},
		{DrawAuto, 1, 1, false},
		{DrawInline, 2, 1, false},
		{DrawHelper, 2, 5, true},
		{DrawHelper, 1, 1, true},
	} {
		t.Run(fmt.Sprintf("mode%d/cores%d/runs%d", c.mode, c.cores, c.inFlight), func(t *testing.T) {
			prev := runtime.GOMAXPROCS(c.cores)
			d := newDrawer(0, c.mode)
			runtime.GOMAXPROCS(prev)
			runsInFlight.Store(c.inFlight)
			d.adjust()
			if got := d.work != nil; got != c.wantHelper {
				t.Errorf("helper running = %v, want %v", got, c.wantHelper)
			}
			runsInFlight.Store(0)
			d.adjust() // a core is now spare for every mode that may use one
			if got := d.work != nil; got != (c.mode != DrawInline && (c.cores > 1 || c.mode == DrawHelper)) {
				t.Errorf("with no other run in flight: helper running = %v", got)
			}
			d.stop()
		})
	}
}
