package sim

import (
	"testing"

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
