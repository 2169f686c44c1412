package results

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTimesTextMatchesTable: the headline's multiplier reads as the
// table's cell (MultiplierText, two decimals): 145.7 → 139.3 jobs/h is
// +4.6%, which one decimal printed as "1.0×" beside the table's 1.05x.
func TestTimesTextMatchesTable(t *testing.T) {
	for _, x := range []float64{145.7 / 139.3, 139.3 / 145.7, 0.84, 6.123, 15.3, 1} {
		want := strings.TrimSuffix(MultiplierText(&x, "x"), "x") + "×"
		if diff := cmp.Diff(want, TimesText(x)); diff != "" {
			t.Errorf("TimesText(%g) (-want +got):\n%s", x, diff)
		}
	}
	if got := TimesText(145.7 / 139.3); got != "1.05×" {
		t.Errorf("TimesText(145.7/139.3) = %q, want 1.05×", got)
	}
}

// TestHeadlineOutageZeroWritten: runs[] holds production_outage_minutes
// when it is 0 (omitempty dropped it, though docs/reference/outputs.md
// lists it).
func TestHeadlineOutageZeroWritten(t *testing.T) {
	for _, tc := range []struct {
		run  HeadlineRun
		want string
	}{
		{HeadlineRun{Policy: "p", Production: true}, `"production_outage_minutes":0`},
		{HeadlineRun{Policy: "p", Production: true, OutageMinutes: 7}, `"production_outage_minutes":7`},
	} {
		b, err := json.Marshal(tc.run)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), tc.want) {
			t.Errorf("%s lacks %s", b, tc.want)
		}
	}
}
