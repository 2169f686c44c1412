package predict

import (
	"encoding/json"
	"os"
	"testing"
)

func TestQuickShared(t *testing.T) {
	rep, err := Check([]string{"/work/shared/realruns"}, Options{Seeds: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Runs {
		f := r.Figures
		e := func(x Figure) float64 {
			if x.Error == nil {
				return -999
			}
			return *x.Error
		}
		t.Logf("%-70s n=%3d calls=%3d mk rec %7.1f pred %7.1f [%6.1f %6.1f] err %+.2f | infl %+.2f | wait %+.2f | fit %s %s β=%g mdape=%.2f", r.Logs[0][len(r.Logs[0])-60:], r.Samples, r.Calls, *f.Makespan.Recorded, f.Makespan.Predicted, f.Makespan.Interval[0], f.Makespan.Interval[1], e(f.Makespan), e(f.InFlightMean), e(f.WaitingMean), r.Fits[0].Form, r.Fits[0].From, r.Fits[0].Load, r.Fits[0].MdAPE)
	}
	b, _ := json.MarshalIndent(rep.Summary, "", " ")
	t.Log(string(b))
	_ = os.Stdout
}
