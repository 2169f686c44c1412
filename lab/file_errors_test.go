package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSeedsBounded: a sweep or tune file asking for more seeds than
// MaxSeeds is refused at the file and line of its seeds key, as compare
// --seeds is (a tune file once took seeds: 2147483648 and ran out of
// memory building the list).
func TestSeedsBounded(t *testing.T) {
	sweep := "scenario: light-load\npolicy: scheduler\n# the seeds:\nseeds: %s\ngrid:\n  policies.scheduler.target_depth: [4, 16]\n"
	tune := "scenario: light-load\npolicy: scheduler\n\nseeds: %s\nparams:\n  - {key: policies.scheduler.target_depth, min: 2, max: 64}\nobjective: {metric: throughput_per_hour, goal: max}\nbudget: 2\n"
	for _, tc := range []struct {
		name, text, seeds, want string
		load                    func(path string) error
	}{
		{"sweep at the limit", sweep, "1000", "", func(p string) error { _, err := LoadSweep(p); return err }},
		{"sweep past", sweep, "1001", "F:4: seeds: must be in 1..1000, got 1001", func(p string) error { _, err := LoadSweep(p); return err }},
		{"tune at the limit", tune, "1000", "", func(p string) error { _, _, _, err := LoadTune(p); return err }},
		{"tune past", tune, "1001", "F:4: seeds: must be in 1..1000, got 1001", func(p string) error { _, _, _, err := LoadTune(p); return err }},
		// The last seed is first_seed + seeds - 1: it must not wrap past 2^64-1.
		{"sweep's last seed at the top", sweep, "2\nfirst_seed: 18446744073709551614", "", func(p string) error { _, err := LoadSweep(p); return err }},
		{"sweep's last seed past the top", sweep, "2\nfirst_seed: 18446744073709551615", "F:5: first_seed: 18446744073709551615 with 2 seeds: the last seed would pass 18446744073709551615", func(p string) error { _, err := LoadSweep(p); return err }},
		{"tune's last seed past the top", tune, "3\nfirst_seed: 18446744073709551614", "F:5: first_seed: 18446744073709551614 with 3 seeds: the last seed would pass 18446744073709551615", func(p string) error { _, _, _, err := LoadTune(p); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.yaml")
			if err := os.WriteFile(path, []byte(fmt.Sprintf(tc.text, tc.seeds)), 0o644); err != nil {
				t.Fatal(err)
			}
			got := ""
			if err := tc.load(path); err != nil {
				got = err.Error()
			}
			want := tc.want
			if want != "" {
				want = path + want[1:]
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFileErrorsNameTheLine: a gate, sweep or tune file refused on a
// decoded value names the line of the key or list item at fault.
func TestFileErrorsNameTheLine(t *testing.T) {
	gate := "baseline: b.json\nscenarios:\n  - {name: a, scenario: light-load, seeds: [1]}\n  - name: b\n    scenario: light-load\nchecks:\n  - {metric: jain, floor: {absolute: 0.1}}\n  - metric: %s\n    floor: {absolute: 1}\n"
	loadGate := func(p string) error { _, err := LoadGate(p); return err }
	for _, tc := range []struct {
		name, text, want string
		load             func(path string) error
	}{
		{"gate scenario without seeds", fmt.Sprintf(gate, "jain"), "F:4: scenarios[1]: needs seeds", loadGate},
		{"gate unknown metric", strings.Replace(fmt.Sprintf(gate, "speed"), "    scenario: light-load\n", "    scenario: light-load\n    seeds: [1]\n", 1),
			"F:9: checks[1].metric: unknown \"speed\"", loadGate},
		{"tune param", "scenario: light-load\nseeds: 1\nparams:\n  - {key: policies.scheduler.step, min: 1, max: 4}\n  - {key: policies.scheduler.factor, min: 2, max: 2}\nobjective: {metric: jain, goal: max}\nbudget: 2\n",
			"F:5: params[1]: needs a key and min < max", func(p string) error { _, _, _, err := LoadTune(p); return err }},
		{"sweep metric", "scenario: light-load\nseeds: 1\n\nmetrics: [jain, speed]\ngrid:\n  policies.scheduler.step: [1, 2]\n",
			"F:4: metrics[1]: unknown \"speed\"", func(p string) error { _, err := LoadSweep(p); return err }},
		// Unknown keys and wrong types name the line and field path, not
		// the decoder's Go types; of a flow mapping, the key at fault.
		{"gate unknown key in a flow mapping", strings.Replace(fmt.Sprintf(gate, "jain"), "{metric: jain, floor", "{metric: jain, lane: x, floor", 1),
			"F:7: checks[0].lane: unknown field (have ceiling, floor, lanes, metric, scenarios)", loadGate},
		{"sweep unknown key", "scenario: light-load\nseeds: 1\nmetricz: [jain]\n",
			"F:3: metricz: unknown field (have baseline, first_seed, grid, lanes, metrics, overlay, points, policy, scenario, seeds, variant)", func(p string) error { _, err := LoadSweep(p); return err }},
		{"tune unknown key in a list item", "scenario: light-load\nseeds: 1\nparams:\n  - {key: duration, min: 1, max: 2, unitt: s}\nobjective: {metric: jain, goal: max}\n",
			"F:4: params[0].unitt: unknown field (have integer, key, log, max, min, unit)", func(p string) error { _, _, _, err := LoadTune(p); return err }},
		// A tolerance and a goal are read by their own decoders: the same
		// forms, at the key at fault.
		{"gate tolerance unknown key", strings.Replace(fmt.Sprintf(gate, "jain"), "{absolute: 0.1}", "{absolute: 0.1, relativ: 2}", 1),
			"F:7: checks[0].floor.relativ: unknown field (have absolute, k_se, paired, relative, threshold)", loadGate},
		{"gate tolerance not a number", strings.Replace(fmt.Sprintf(gate, "jain"), "    floor: {absolute: 1}\n", "    floor:\n      absolute: [1]\n", 1),
			"F:10: checks[1].floor.absolute: want a number, got a list", loadGate},
		{"tune unknown goal", "scenario: light-load\nseeds: 1\nparams:\n  - {key: duration, min: 1, max: 2}\nobjective: {metric: jain, goal: maximise}\n",
			"F:5: objective.goal: unknown \"maximise\" (want max, min or target)", func(p string) error { _, _, _, err := LoadTune(p); return err }},
		{"tune target without a value", "scenario: light-load\nseeds: 1\nparams:\n  - {key: duration, min: 1, max: 2}\n\nobjective: {metric: jain, goal: target}\n",
			"F:6: objective: goal target and a target value go together (goal \"target\")", func(p string) error { _, _, _, err := LoadTune(p); return err }},
		{"tune trade-off value without target", "scenario: light-load\nseeds: 1\nparams:\n  - {key: duration, min: 1, max: 2}\nobjective: {metric: jain, goal: max}\ntrade_off: {metric: p90_job_time_s, goal: min, target: 3}\n",
			"F:6: trade_off: goal target and a target value go together (goal \"min\")", func(p string) error { _, _, _, err := LoadTune(p); return err }},
		{"sweep wrong type", "scenario: light-load\nseeds: abc\n",
			"F:2: seeds: want a whole number, got \"abc\"", func(p string) error { _, err := LoadSweep(p); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.yaml")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			err := tc.load(path)
			if want := path + tc.want[1:]; err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %v, want it to begin %q", err, want)
			}
		})
	}
}
