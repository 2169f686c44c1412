package scenario

import (
	"strconv"
	"strings"
	"testing"

	"github.com/evalsched/lab/scenario/scenariotest"
)

func TestScenarioValid(t *testing.T) {
	sc, err := ParseScenario("ok.yaml", []byte(scenariotest.Valid))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sc.Catalogue(), ","); got != "a,b" {
		t.Errorf("catalogue = %s, want a,b", got)
	}
	if got := sc.ModelConfigs()[0].InflightLimit; got != 10 {
		t.Errorf("inflight_limit defaults to streams: got %d, want 10", got)
	}
}

// TestScenarioErrors: each broken scenario is refused with FILE:LINE: and the
// field at fault. The expected line is found by searching the broken text for
// the marker, independently of the parser.
func TestScenarioErrors(t *testing.T) {
	cases := []struct {
		name, old, new string
		marker         string // text on the line the error must name
		want           string // substring of the message
	}{
		{"malformed yaml", "  accounts: 2\n", "  accounts: [2\n", "", "bad.yaml:"},
		{"unknown key", "    decode_rate: 50\n", "    decode_rate: 50\n    decoder_rate: 5\n", "decoder_rate", "models[0].decoder_rate: unknown field"},
		{"wrong type", "streams: 10", "streams: ten", "streams: ten", `models[0].streams: want a whole number, got "ten"`},
		{"negative capacity", "capacity: 100", "capacity: -1", "capacity: -1", "containers.capacity: must be > 0"},
		{"zero decode rate", "    decode_rate: 50\n", "    decode_rate: 0\n", "decode_rate: 0", "models[0].decode_rate: must be > 0"},
		{"lane cap above global cap", "lanes: {a: 20}", "lanes: {a: 80}", "lanes: {a: 80}", "lanes.a: cap 80 is above global_cap 50"},
		{"unknown hot model", "hot: [a]", "hot: [zz]", "hot: [zz]", "models.hot[0]: unknown model \"zz\""},
		{"global cap above containers", "global_cap: 50", "global_cap: 500", "global_cap: 500", "above containers.capacity"},
		{"unknown org", "    org: o\n", "    org: nope\n", "org: nope", "models[0].org: unknown organisation"},
		{"negative rpm", "rpm: 100", "rpm: -3", "rpm: -3", "organisations[0].rpm"},
		{"bad distribution", "x: {turns: 2}", "x: {turns: {dist: pareto, min: 0, max: 5, alpha: 1}}", "dist: pareto", "turns.min: must be > 0"},
		{"unknown distribution key", "x: {turns: 2}", "x: {turns: {dist: fixed, valu: 2}}", "valu", "workload.behaviours.x.turns.valu: unknown field"},
		{"zero duration", "duration: 1h", "duration: 0s", "duration: 0s", "duration: must be > 0"},
		{"duplicate model", "{name: b,", "{name: a,", "{name: a,", "duplicate model"},
		{"negative scheduler target", "    lanes: {a: 20}\n", "    lanes: {a: 20}\n  scheduler: {target_depth: -4}\n", "target_depth", "policies.scheduler"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(scenariotest.Valid, tc.old) {
				t.Fatalf("test bug: %q not in the base scenario", tc.old)
			}
			text := strings.Replace(scenariotest.Valid, tc.old, tc.new, 1)
			_, err := ParseScenario("bad.yaml", []byte(text))
			if err == nil {
				t.Fatal("broken scenario accepted")
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) {
				t.Errorf("error %q does not contain %q", msg, tc.want)
			}
			if tc.marker != "" {
				line := 1 + strings.Count(text[:strings.Index(text, tc.marker)], "\n")
				if !strings.Contains(msg, "bad.yaml:"+strconv.Itoa(line)+":") && !strings.Contains(msg, "line "+strconv.Itoa(line)+":") {
					t.Errorf("error %q does not name line %d", msg, line)
				}
			}
		})
	}
}

func TestEmbeddedScenariosLoad(t *testing.T) {
	t.Chdir(t.TempDir()) // an embedded scenario needs no file beside it
	for _, name := range EmbeddedNames() {
		if _, err := LoadScenario("embedded:" + name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
