package sim

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/evalsched/lab/scenario"
)

// TestLiveReadingStamp: a live depth reading is stamped with the wall time
// of its instant whatever was read before (the stamp is kept from one
// reading to the next at one instant).
func TestLiveReadingStamp(t *testing.T) {
	g := newGateway(&scenario.GatewayConfig{}, make([]scenario.ModelConfig, 2), 1)
	g.push(1, 7)
	for _, now := range []Time{0, 0, 5 * Second, 5 * Second, Second, 90 * Minute} {
		for m := range int32(2) {
			d, at := g.reading(m, now)
			if want := Epoch.Add(now.Duration()); !at.Equal(want) || at != want {
				t.Fatalf("reading of model %d at %v stamped %v, want %v", m, now.Duration(), at, want)
			}
			if want := int(m); d != want {
				t.Fatalf("reading of model %d at %v: depth %d, want %d", m, now.Duration(), d, want)
			}
		}
	}
}

// TestStampedReadingMatchesReading: where the stamped reading answers (no
// stale spells, no delay, the lane read at the instant of the last live
// reading), it is reading's answer, as queues and backoffs move, with the
// depth signal counting backoffs or not; with a delay or a spell it never
// answers.
func TestStampedReadingMatchesReading(t *testing.T) {
	cfgs := map[string]scenario.GatewayConfig{
		"live":   {},
		"queued": {DepthSignal: scenario.DepthQueued},
		"delay":  {DepthDelay: 20 * time.Second, DepthSample: 10 * time.Second},
		"stale":  {Stale: []scenario.StaleSpell{{From: time.Minute, To: 2 * time.Minute}}},
	}
	for name, cfg := range cfgs {
		rng := rand.New(rand.NewPCG(6, 44))
		g := newGateway(&cfg, make([]scenario.ModelConfig, 5), 1)
		now, answered := Time(0), 0
		for range 5000 {
			m := int32(rng.IntN(5))
			switch rng.IntN(6) {
			case 0:
				g.push(m, 1)
			case 1:
				g.pop(m)
			case 2:
				g.backoffStarted(m)
			case 3:
				if g.lanes[m].backoff > 0 {
					g.backoffEnded(m)
				}
			case 4:
				now += Time(rng.IntN(3)) * 5 * Second
				if g.sampleTimes != nil {
					g.sampleDepth(now)
				}
			}
			d, at, ok := g.stampedReading(m, now)
			wantD, wantAt := g.reading(m, now)
			if !ok {
				continue
			}
			answered++
			if d != wantD || at != wantAt {
				t.Fatalf("%s: model %d at %v: stamped reading %d at %v, reading %d at %v", name, m, now.Duration(), d, at, wantD, wantAt)
			}
		}
		if live := name == "live" || name == "queued"; live != (answered > 1000) {
			t.Errorf("%s: the stamped reading answered %d times of 5000", name, answered)
		}
	}
}
