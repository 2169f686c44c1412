package policies

import "testing"

// TestDampedGuards: the rules that set ControllerDamped apart from search,
// one step at a time on a hand-set state (target 20, tolerance 0).
func TestDampedGuards(t *testing.T) {
	c := controller{factor: 1.25, kind: ControllerDamped}
	tests := []struct {
		name    string
		rival   rivalState
		depth   float64
		running int
		wantDir int
	}{
		{name: "low depth raises", rival: rivalState{ewma: 0, haveE: true}, depth: 0, running: 100, wantDir: 1},
		{name: "a deep newest reading blocks a raise", rival: rivalState{ewma: 0, haveE: true}, depth: 40, running: 100, wantDir: 0},
		{name: "a shallow newest reading blocks a cut", rival: rivalState{ewma: 200, haveE: true}, depth: 0, running: 100, wantDir: 0},
		{name: "deep on both lowers", rival: rivalState{ewma: 200, haveE: true}, depth: 200, running: 100, wantDir: -1},
		{name: "inside the hold band holds", rival: rivalState{ewma: 25, haveE: true}, depth: 25, running: 100, wantDir: 0},
		{name: "waits after a move", rival: rivalState{ewma: 200, haveE: true, wait: 1}, depth: 200, running: 100, wantDir: 0},
		{name: "frozen while a cut has not bitten", rival: rivalState{ewma: 200, haveE: true, lastDir: -1, gain: 0.25},
			depth: 200, running: 120, wantDir: 0},
		{name: "cuts again once it has", rival: rivalState{ewma: 200, haveE: true, lastDir: -1, gain: 0.25},
			depth: 200, running: 100, wantDir: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ls := limitState{limit: 100, target: 20, minL: 1, maxL: 1000, rival: tc.rival}
			_, dir := c.dampedStep(&ls, &signals{depth: tc.depth, running: tc.running})
			if dir != tc.wantDir {
				t.Errorf("direction %d, want %d", dir, tc.wantDir)
			}
		})
	}
}

// TestDampedGainHalves: a reversal halves the step, dampRun moves one way
// double it again (up to factor − 1).
func TestDampedGainHalves(t *testing.T) {
	c := controller{factor: 1.25, kind: ControllerDamped}
	ls := limitState{limit: 100, target: 20, minL: 1, maxL: 1000,
		rival: rivalState{ewma: 0, haveE: true, lastDir: -1, gain: 0.25, run: 1}}
	want, dir := c.dampedStep(&ls, &signals{depth: 0, running: 100})
	if dir != 1 || want != 113 { // 100 + round(100 × 0.125)
		t.Fatalf("after a reversal: want %g dir %d, want 113 and +1", want, dir)
	}
}
