package policies

import (
	"maps"
	"strings"
	"testing"
)

// bakeRun runs every controller and control of every case, checking
// nothing: the rows TestBakeoff would see.
func bakeRun(t *testing.T, cases []bakeCase) bakeResults {
	res := bakeResults{}
	for _, bc := range cases {
		for _, kind := range Controllers {
			r := bc.run(t, kind, nil)
			r.name = string(kind)
			res[bc.name] = append(res[bc.name], r)
		}
		for _, c := range bc.controls {
			r := bc.run(t, c.kind, c.mod)
			r.name = c.name + " (control)"
			res[bc.name] = append(res[bc.name], r)
		}
	}
	return res
}

// clone copies res deeply enough to plant a change in one row.
func (res bakeResults) clone() bakeResults {
	out := bakeResults{}
	for k, rs := range res {
		for _, r := range rs {
			r.x = maps.Clone(r.x)
			out[k] = append(out[k], r)
		}
	}
	return out
}

// TestBakeoffProseFollowsResults: a change planted in one harness result
// changes the study's prose, its number or its verdict, as written here by
// hand: the prose is computed from the rows, not fixed text.
func TestBakeoffProseFollowsResults(t *testing.T) {
	cases := bakeCases()
	res := bakeRun(t, cases)
	base := bakeoffStudy(cases, res)
	for _, tc := range []struct {
		name, caseName, row string
		plant               func(*bakeRow)
		want, gone          string
	}{
		{"inspect freezes under the quota", "1 quota", "inspect",
			func(r *bakeRow) { r.x["cuts under the quota"] = 1 },
			"Here inspect freezes;", "Here no controller freezes or\nruns away"},
		{"a raise on a 429 tick", "1 quota", "aimd",
			func(r *bakeRow) { r.x["raises on a 429 tick"] = 3 },
			"and aimd raises on a tick with 429s", "none raises on a tick with 429s"},
		{"slowstart's slower lift", "1 quota", "slowstart",
			func(r *bakeRow) { r.m.toBusy = 77 },
			"`slowstart` is\n95% busy in 77 ticks", "`slowstart` is\n95% busy in 9 ticks"},
		{"the shared key split fairly", "2b shared key, B joins", "slowstart",
			func(r *bakeRow) { r.x["share of A"] = 0.55 },
			"`slowstart` splits the key (A keeps 55%)", "**Known limitation of `slowstart`**"},
		{"slowstart stops short of max_limit", "3 timeouts", "slowstart",
			func(r *bakeRow) { r.m.end = 1000 },
			"reach max_limit; `slowstart` does not", "**`slowstart` reach max_limit"},
		{"gradient holds on fast failures", "4 fast fail", "gradient",
			func(r *bakeRow) { r.m.peak = 3 },
			"gradient holds (3.00 × settled at most", "gradient runs away (10 × settled"},
		{"a depth controller's wait", "6 loaded start", "pi",
			func(r *bakeRow) { r.m.waitJobH = 12.34 },
			"against ≤ 12.3 for the depth controllers", "against ≤ 9.2 for the depth controllers"},
		{"step stops cycling", "7a slowdown", "step",
			func(r *bakeRow) { r.m.revPerH = 10 },
			"step, the negative control, does not cycle (10 reversals/h)", "cycles (86 reversals/h)"},
		{"a raise on a frozen reading", "7c stale", "slowstart",
			func(r *bakeRow) { r.x["raises while stale"] = 2 },
			"`slowstart` raises on a frozen reading", "No controller\nraises on a frozen reading"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(base, tc.gone) {
				t.Fatalf("the unplanted study lacks %q", tc.gone)
			}
			planted := res.clone()
			rs := planted[tc.caseName]
			i := 0
			for i < len(rs) && rs[i].name != tc.row {
				i++
			}
			if i == len(rs) {
				t.Fatalf("case %q has no row %q", tc.caseName, tc.row)
			}
			tc.plant(&rs[i])
			got := bakeoffStudy(cases, planted)
			if !strings.Contains(got, tc.want) {
				t.Errorf("planted study lacks %q", tc.want)
			}
			if strings.Contains(got, tc.gone) {
				t.Errorf("planted study still says %q", tc.gone)
			}
		})
	}
}
