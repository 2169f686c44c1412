package sim

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/scenario/scenariotest"
	"github.com/evalsched/lab/workloads"
)

// fuzzBudget bounds the simulation an accepted input runs.
var fuzzBudget = scenario.Budget{MaxEvents: 200_000, MaxMemory: 256 << 20}

// shortRun runs sc for at most ten virtual minutes under the scheduler,
// within fuzzBudget; a run the budget refuses or stops is fine, a panic
// is not.
func shortRun(t *testing.T, sc *scenario.Scenario, src workloads.Source) {
	sc.Duration = min(sc.Duration, 10*time.Minute)
	sc.Warmup = 0
	if err := sc.SetBudget(fuzzBudget, src != nil); err != nil {
		return
	}
	pol, err := scenario.NewPolicy("scheduler", sc)
	if err != nil {
		return
	}
	w, err := NewWorld(sc, Options{Seed: 1, Policy: pol, Source: src})
	if err != nil {
		return
	}
	_ = w.Run()
}

// FuzzParseScenario: the loader never panics, and a scenario it accepts
// runs a short simulation without panicking.
func FuzzParseScenario(f *testing.F) {
	f.Add([]byte(scenariotest.Valid))
	for _, name := range scenario.EmbeddedNames() {
		if data, err := scenario.EmbeddedYAML(name); err == nil && !bytes.Contains(data, []byte("production:")) {
			f.Add(data)
		}
	}
	for _, edit := range [][2]string{
		{"streams: 10", "streams: 9.5"}, {"duration: 1h", "duration: 2562047h"}, {"rpm: 100", "rpm: .nan"},
		{"turns: 2", "turns: 1e30"}, {"size: 3", "size: {dist: exponential, mean: 1e9}"}, {"warmup: 5m", "warmup: 5m\n---\nname: x"},
		{"capacity: 100", "capacity: 0.9"}, {"x: {turns: 2}", "x: {turns: 2, fanout: 0}"}, {"name: t", "name: [t"},
	} {
		f.Add([]byte(strings.Replace(scenariotest.Valid, edit[0], edit[1], 1)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := scenario.ParseScenario("fuzz.yaml", data)
		if err != nil {
			return
		}
		shortRun(t, sc, nil)
	})
}

// FuzzJobTrace: the job-trace reader (JSON Lines and CSV) never panics, and
// the jobs it accepts run a short simulation without panicking.
func FuzzJobTrace(f *testing.F) {
	for _, seed := range []struct {
		text string
		csv  bool
	}{
		{`{"v":1,"id":"0","arrival_s":1.5,"account":"acct-000","project":"acct-000/p00","batch":"b1","account_tier":1,"model":"a","class":"x","seed":7}` + "\n", false},
		{`{"v":1,"id":"1","arrival_s":2,"account":"c","project":"c/p","batch":"b","model":"b","plan":[{"calls":[[100,20],[50,5]],"tool_s":1.5}]}` + "\n", false},
		{"\ufeff" + `{"v":1,"id":"0","arrival_s":NaN}` + "\n{\n", false},
		{"v,id,arrival_s,account,project,batch,model,class,seed\n1,0,3,c,c/p,b,a,x,5\n1,1,2,c,c/p,b,a,x,6\n", true},
		{"v,id,arrival_s,account,project,batch,model,class,seed\n1,0,\"3,c\n", true},
	} {
		f.Add([]byte(seed.text), seed.csv)
	}
	f.Fuzz(func(t *testing.T, data []byte, csv bool) {
		sc, err := scenario.ParseScenario("fuzz.yaml", []byte(scenariotest.Valid))
		if err != nil {
			t.Fatal(err)
		}
		classes, err := workloads.BehaviourClasses(sc.Workload)
		if err != nil {
			t.Fatal(err)
		}
		format := workloads.JobJSONL
		if csv {
			format = workloads.JobCSV
		}
		if _, err := workloads.ValidateTrace(bytes.NewReader(data), "fuzz", format, sc.Catalogue(), classes); err != nil {
			return
		}
		src := workloads.NewTraceReader(bytes.NewReader(data), "fuzz", format, sc.Catalogue(), classes, workloads.TraceOptions{SkipInvalid: true})
		shortRun(t, sc, src)
	})
}

// FuzzVariant: merging a variant's overlay onto a scenario never panics, and
// a variant that builds runs a short simulation without panicking.
func FuzzVariant(f *testing.F) {
	for _, block := range []string{
		scenariotest.VariantsBlock,
		"variants:\n  x: {policy: fixed-lane}\n",
		"variants:\n  x:\n    models: [{name: a, streams: 9.5}]\n",
		"variants:\n  x:\n    models: [{name: z, streams: 3, decode_rate: 1}]\n    policies: {scheduler: {bogus: 1}}\n",
		"variants:\n  x: {name: y}\n",
		"variants:\n  x: [1, 2]\n",
		"variants:\n  x:\n    workload: {background: {rate_per_hour: .nan}}\n",
		"variants:\n  x:\n    organisations: [{name: o, rpm: 1}]\n    events: [{at: 10m, model: a, capacity: 0}]\n",
	} {
		f.Add(block)
	}
	f.Fuzz(func(t *testing.T, block string) {
		sc, err := scenario.ParseScenario("fuzz.yaml", []byte(scenariotest.Valid+block))
		if err != nil {
			return
		}
		for _, name := range sc.VariantNames() {
			v, err := sc.Variant(name)
			if err != nil {
				continue
			}
			shortRun(t, v.Scenario, nil)
		}
	})
}
