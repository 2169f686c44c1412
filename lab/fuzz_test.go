package lab

import (
	"bytes"
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalsched/lab/internal/field"
)

// fuzzFile writes data as a file beside a copy of nothing else: scenario
// references in the fuzzed text resolve to the embedded scenarios.
func fuzzFile(t *testing.T, data []byte) string {
	p := filepath.Join(t.TempDir(), "f.yaml")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// refused checks a loader's refusal names the file.
func refused(t *testing.T, path string, err error) {
	t.Helper()
	var fe *field.Error
	if errors.As(err, &fe) && fe.File != path && fe.File != "" && fe.File[:min(len(fe.File), 9)] != "embedded:" {
		// An error in the scenario a file names is that scenario's.
		if _, statErr := os.Stat(fe.File); statErr != nil {
			t.Errorf("error names %q, neither the file nor a scenario: %v", fe.File, err)
		}
	}
}

var gateSeeds = []string{
	"baseline: b.json\nscenarios:\n  - {name: a, scenario: light-load, policy: scheduler, overlay: {duration: 20m, warmup: 5m}, seeds: [1, 2]}\nchecks:\n  - {metric: throughput_per_hour, lanes: [\"(all)\"], floor: {relative: 0.05, paired: 0.02}}\n  - {metric: outage_minutes, ceiling: {threshold: 0}}\n",
	"baseline: b.json\nscenarios:\n  - {name: a, scenario: light-load, seeds: [1, 1]}\nchecks:\n  - {metric: jain, floor: {threshold: .nan, relative: 1}}\n",
	"",
	"---\n---\n",
	"baseline: [1]\n",
}

// FuzzGateFile: no gate file panics the loader; one it accepts has
// finite, non-negative tolerances, unique seeds and a built point per
// scenario; one it refuses names the file.
func FuzzGateFile(f *testing.F) {
	for _, s := range gateSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := fuzzFile(t, data)
		g, err := LoadGate(p)
		if err != nil {
			refused(t, p, err)
			return
		}
		for i, s := range g.Spec.Scenarios {
			seen := map[uint64]bool{}
			for _, seed := range s.Seeds {
				if seen[seed] {
					t.Errorf("scenarios[%d]: seed %d accepted twice", i, seed)
				}
				seen[seed] = true
			}
		}
		if len(g.Points) != len(g.Spec.Scenarios) || len(g.Digests) != len(g.Points) {
			t.Errorf("%d scenarios, %d points, %d digests", len(g.Spec.Scenarios), len(g.Points), len(g.Digests))
		}
		for i, c := range g.Spec.Checks {
			tol := c.Floor
			if tol == nil {
				tol = c.Ceiling
			}
			for _, v := range []float64{tol.Relative, tol.Absolute, tol.KSE} {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					t.Errorf("checks[%d]: tolerance %v accepted", i, v)
				}
			}
			if tol.Threshold != nil && (tol.Relative != 0 || tol.Absolute != 0 || tol.KSE != 0 || tol.Paired != nil) {
				t.Errorf("checks[%d]: threshold accepted beside a spread", i)
			}
		}
	})
}

var sweepSeeds = []string{
	"scenario: light-load\npolicy: scheduler\noverlay: {duration: 20m, warmup: 5m}\nseeds: 2\ngrid:\n  policies.scheduler.target_depth: [4, 16]\nlanes: [\"(all)\"]\nmetrics: [jain]\n",
	"scenario: light-load\nseeds: 1\npoints:\n  - {name: a, overlay: {policies: {scheduler: {target_depth: 3}}}}\n",
	"scenario: light-load\nseeds: 1\ngrid:\n  policies.scheduler.step: [1, 1]\n  policies.scheduler.step: [2]\n",
	"\xff\xfes\x00",
}

// FuzzSweepFile: no sweep file panics the loader; one it accepts has
// between 1 and MaxSweepPoints points with unique ids and the seeds asked.
func FuzzSweepFile(f *testing.F) {
	for _, s := range sweepSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := fuzzFile(t, data)
		s, err := LoadSweep(p)
		if err != nil {
			refused(t, p, err)
			return
		}
		if len(s.Points) == 0 || len(s.Points) > MaxSweepPoints || len(s.Seeds) == 0 || len(s.Seeds) > MaxSeeds {
			t.Errorf("%d points, %d seeds accepted", len(s.Points), len(s.Seeds))
		}
		ids := map[string]bool{}
		for _, pt := range s.Points {
			if ids[pt.ID] {
				t.Errorf("point id %s twice", pt.ID)
			}
			ids[pt.ID] = true
		}
	})
}

var tuneSeeds = []string{
	"scenario: light-load\npolicy: scheduler\noverlay: {duration: 20m, warmup: 5m}\nseeds: 1\nparams:\n  - {key: policies.scheduler.target_depth, min: 2, max: 64, integer: true, log: true}\nobjective: {metric: throughput_per_hour, goal: max}\nconstraints:\n  - {metric: jain, min: 0.1}\ntrade_off: {metric: p90_job_time_s, goal: min}\nbudget: 4\n",
	"scenario: light-load\nseeds: 1\nparams:\n  - {key: policies.scheduler.step, min: .nan, max: 4}\nobjective: {metric: jain, goal: minimise}\nbudget: -3\n",
}

// FuzzTuneFile: no tune file panics the loader; one it accepts has
// finite ranges with min < max, a known goal, a budget in range, and
// constraints with a bound.
func FuzzTuneFile(f *testing.F) {
	for _, s := range tuneSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := fuzzFile(t, data)
		tf, _, seeds, err := LoadTune(p)
		if err != nil {
			refused(t, p, err)
			return
		}
		if len(seeds) == 0 || tf.Budget < 1 || tf.Budget > MaxTuneBudget || len(tf.Params) > MaxTuneParams {
			t.Errorf("%d seeds, budget %d, %d params accepted", len(seeds), tf.Budget, len(tf.Params))
		}
		for _, q := range tf.Params {
			if !finite(q.Min) || !finite(q.Max) || !(q.Max > q.Min) {
				t.Errorf("param %s [%g, %g] accepted", q.Key, q.Min, q.Max)
			}
		}
		if tf.Objective.Goal != GoalMax && tf.Objective.Goal != GoalMin {
			t.Errorf("goal %q accepted", tf.Objective.Goal)
		}
		for _, c := range tf.Constraints {
			if c.Min == nil && c.Max == nil {
				t.Errorf("constraint on %s without a bound accepted", c.Metric)
			}
		}
	})
}

// FuzzPointFile: no point file panics checkPoint; one it accepts carries
// the sweep's header, ends in a newline and holds rows of every seed of
// the sweep with finite values.
func FuzzPointFile(f *testing.F) {
	m := SweepManifest{Schema: "evalsched-sweep", Hash: "abc", ParamKeys: []string{"k"}, Points: []string{"p0000"}, Names: []string{"k=1"}, Seeds: []uint64{1, 2}}
	good := pointHeader("abc", "p0000") + "p0000,k=1,1,1,(all),jain,0.5\np0000,k=1,1,2,(all),jain,0.25\n"
	f.Add([]byte(good))
	f.Add([]byte(good[:len(good)-3]))
	f.Add([]byte(strings.Replace(good, "0.25", "NaN", 1)))
	f.Add([]byte("planted\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "p0000.csv")
		os.WriteFile(p, data, 0o644)
		body, err := checkPoint(p, m, 0)
		if err != nil {
			var fe *field.Error
			if !errors.As(err, &fe) || fe.File != p {
				t.Errorf("refusal does not name the file: %v", err)
			}
			return
		}
		if !strings.HasPrefix(string(data), pointHeader("abc", "p0000")) || len(body) == 0 || body[len(body)-1] != '\n' {
			t.Errorf("accepted %q", data)
		}
		rows := aggregateRows(mustCSV(t, body), 7)
		for _, a := range rows {
			for _, v := range a.Values {
				if !finite(v) {
					t.Errorf("accepted a value %v", v)
				}
			}
		}
	})
}

func mustCSV(t *testing.T, body []byte) [][]string {
	r := csv.NewReader(bytes.NewReader(body))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatalf("accepted rows that do not read back: %v", err)
	}
	return rows
}

// FuzzBaseline: no baseline file panics ReadBaseline; one it accepts has
// the schema and, per figure, as many finite values as seeds.
func FuzzBaseline(f *testing.F) {
	f.Add([]byte(`{"schema": "evalsched-gate-baseline", "metrics_version": 1, "scenarios": [{"name": "a", "digest": "x", "seeds": [1, 2], "figures": [{"lane": "(all)", "metric": "jain", "values": [0.5, 0.25], "mean": 0.375, "se": 0.125}]}]}`))
	f.Add([]byte(`{"schema": "evalsched-gate-baseline", "scenarios": [{"name": "a", "seeds": [1], "figures": [{"values": [1, 2]}]}]}`))
	f.Add([]byte(`{`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "b.json")
		os.WriteFile(p, data, 0o644)
		b, ok, err := ReadBaseline(p)
		if err != nil || !ok {
			return
		}
		if b.Schema != BaselineSchema {
			t.Errorf("accepted schema %q", b.Schema)
		}
		for _, s := range b.Scenarios {
			for _, fig := range s.Figures {
				n := len(s.Seeds)
				if fig.Seeds != nil {
					n = len(fig.Seeds)
				}
				if len(fig.Values) != n {
					t.Errorf("accepted %d values for %d seeds", len(fig.Values), n)
				}
			}
		}
	})
}
