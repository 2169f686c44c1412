package replaycheck

import (
	"testing"
)

func TestMETRSample(t *testing.T) {
	rep, err := Check([]string{"../../workloads/agentlog/testdata/metr-oxdna-small.eval"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", rep.Latency)
	for _, s := range rep.Samples {
		t.Logf("%+v", s)
	}
	t.Logf("MdAPE %.3f MAPE %.3f r %.3f makespan %.1f vs %.1f wait %.1f vs %.1f", rep.MdAPE, rep.MAPE, rep.Correlation, rep.RecordedMakespan, rep.SimulatedMakespan, rep.RecordedWait, rep.SimulatedWait)
}
