package sim

import (
	"reflect"
	"testing"
	"time"

	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/workloads"
)

// TestDefaultIsSliceOfStudioWeek: the embedded default is a weekday
// working-hours slice of studio-week. Everything but the clock is the same
// (models, providers, quotas, caps, scheduler settings, workload), its
// profile starts where the slice does, and its bursts and events are exactly
// the week's that fall in the slice, shifted to the slice's clock.
func TestDefaultIsSliceOfStudioWeek(t *testing.T) {
	def, err := scenario.LoadScenario("embedded:default")
	if err != nil {
		t.Fatal(err)
	}
	week, err := scenario.LoadScenario("embedded:studio-week")
	if err != nil {
		t.Fatal(err)
	}
	if week.Duration != 7*24*time.Hour {
		t.Errorf("studio-week lasts %v, want 168h", week.Duration)
	}
	start := def.Workload.Batches.Profile.Start - week.Workload.Batches.Profile.Start
	if day, hour := start/(24*time.Hour)%7, start%(24*time.Hour); day > 4 || hour < 8*time.Hour || hour+def.Duration > 18*time.Hour {
		t.Errorf("the slice starts on day %d at %v for %v: not within a weekday's working hours", day, hour, def.Duration)
	}
	if def.Workload.Background.Profile.Start-week.Workload.Background.Profile.Start != start {
		t.Errorf("the background profile does not start with the batches'")
	}
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"containers", def.Containers, week.Containers},
		{"gateway", def.Gateway, week.Gateway},
		{"organisations", def.Organisations, week.Organisations},
		{"models", def.ModelConfigs(), week.ModelConfigs()},
		{"policies", def.Policies, week.Policies},
		{"workload (but the clock)", unclocked(def.Workload), unclocked(week.Workload)},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s differ between default and studio-week", c.what)
		}
	}
	var wantBursts []workloads.Burst
	for _, b := range week.Workload.Batches.Bursts {
		if b.At >= start && b.At < start+def.Duration {
			b.At -= start
			wantBursts = append(wantBursts, b)
		}
	}
	if !reflect.DeepEqual(def.Workload.Batches.Bursts, wantBursts) || len(def.Workload.Background.Bursts) != len(week.Workload.Background.Bursts) {
		t.Errorf("default bursts %v, want the week's in the slice %v", def.Workload.Batches.Bursts, wantBursts)
	}
	var wantEvents []scenario.CapacityEvent
	for _, e := range week.Events {
		if e.At >= start && e.At < start+def.Duration {
			e.At -= start
			wantEvents = append(wantEvents, e)
		}
	}
	if !reflect.DeepEqual(def.Events, wantEvents) {
		t.Errorf("default events %v, want the week's in the slice %v", def.Events, wantEvents)
	}
}

// unclocked is a workload without what depends on the run's clock: the
// profiles' start and the bursts.
func unclocked(c workloads.Config) workloads.Config {
	for _, bp := range []*workloads.BatchProcess{&c.Batches, &c.Background} {
		bp.Profile.Start = 0
		bp.Bursts = nil
	}
	return c
}
