package workloads

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/evalsched/lab/internal/field"
)

// profiledConfig has one job per batch, so jobs count batch arrivals.
func profiledConfig(rate float64, p Profile) Config {
	cfg := generatorConfig()
	cfg.Batches = BatchProcess{RatePerHour: rate, Size: Dist{Kind: "fixed", Value: 1}, Profile: p}
	return cfg
}

var profileModels = []string{"h1", "h2", "judge", "c1", "c2", "c3"}

// hourOfDayCounts counts arrivals per hour of the week clock's day.
func hourOfDayCounts(t *testing.T, cfg Config, horizon time.Duration, start time.Duration) [24]float64 {
	t.Helper()
	g, err := NewGenerator(cfg, profileModels, horizon, 11)
	if err != nil {
		t.Fatal(err)
	}
	var n [24]float64
	for j, ok := g.Next(); ok; j, ok = g.Next() {
		n[int(((start+j.Arrival)/time.Hour)%24)]++
	}
	return n
}

// TestProfileArrivalsFollowRate checks a long run's arrivals per hour of day
// against the integrated rate of the profile (hourly and weekday weights,
// and a start offset): each count within 4 Poisson standard deviations
// (sqrt of its expectation). As a negative control the same counts must be
// far outside that band of a flat rate with the same mean, so the test can
// fail if the profile is ignored.
func TestProfileArrivalsFollowRate(t *testing.T) {
	hourly := make([]float64, 24)
	for h := range hourly {
		hourly[h] = 1 + 0.8*math.Sin(2*math.Pi*float64(h)/24) // 0.2 .. 1.8
	}
	hourly[3] = 0 // a closed hour
	p := Profile{Hourly: hourly, Weekday: []float64{3, 3, 3, 3, 3, 1, 1}, Start: 33 * time.Hour}
	const rate, weeks = 60.0, 6
	horizon := weeks * 7 * 24 * time.Hour
	got := hourOfDayCounts(t, profiledConfig(rate, p), horizon, p.Start)

	// Expected arrivals per hour of day: rate × factor integrated over the
	// run, hour by hour (the factor is constant within an hour).
	if err := p.compile("profile"); err != nil {
		t.Fatal(err)
	}
	var want [24]float64
	total := 0.0
	for h := time.Duration(0); h < horizon; h += time.Hour {
		e := rate * p.Factor(h)
		want[int(((p.Start+h)/time.Hour)%24)] += e
		total += e
	}
	if math.Abs(total-rate*float64(horizon/time.Hour)) > 1e-6*total {
		t.Fatalf("profile does not keep the mean rate: %g expected arrivals, want %g", total, rate*float64(horizon/time.Hour))
	}
	flatFails := 0
	for h := range got {
		if d := math.Abs(got[h] - want[h]); d > 4*math.Sqrt(want[h]) || (want[h] == 0 && got[h] > 0) {
			t.Errorf("hour %02d: %g arrivals, want %.0f ± %.0f (4σ)", h, got[h], want[h], 4*math.Sqrt(want[h]))
		}
		flat := total / 24
		if math.Abs(got[h]-flat) > 4*math.Sqrt(flat) {
			flatFails++
		}
	}
	if flatFails < 12 {
		t.Errorf("only %d of 24 hours differ from a flat rate: the test cannot tell the profile from none", flatFails)
	}
}

// TestFlatProfileSameArrivals: a flat profile (any equal weights, any start)
// gives exactly the jobs of no profile, so existing scenarios are unchanged.
func TestFlatProfileSameArrivals(t *testing.T) {
	flat := Profile{Hourly: make([]float64, 24), Weekday: []float64{2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5}, Start: 50 * time.Hour}
	for h := range flat.Hourly {
		flat.Hourly[h] = 0.1
	}
	jobs := func(p Profile) []string {
		cfg := generatorConfig()
		cfg.Batches.Profile = p
		cfg.Background = BatchProcess{RatePerHour: 30, Size: Dist{Kind: "fixed", Value: 3}, Profile: p}
		g, err := NewGenerator(cfg, profileModels, 20*time.Hour, 3)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for j, ok := g.Next(); ok; j, ok = g.Next() {
			out = append(out, fmt.Sprint(j.ID, j.Arrival, j.Account, j.Project, j.Batch, j.Model, j.Seed, j.Judge, j.AccountTier, j.ProjectTier, j.BatchTier))
		}
		return out
	}
	none, withFlat := jobs(Profile{}), jobs(flat)
	if len(none) < 1000 {
		t.Fatalf("only %d jobs", len(none))
	}
	if strings.Join(none, "\n") != strings.Join(withFlat, "\n") {
		t.Errorf("a flat profile changed the arrivals (%d vs %d jobs)", len(withFlat), len(none))
	}
}

// TestHotWeights: hot models get batches in proportion to their weights.
func TestHotWeights(t *testing.T) {
	cfg := profiledConfig(2000, Profile{})
	cfg.Models.HotShare = 1
	cfg.Models.HotWeights = []float64{3, 1}
	g, err := NewGenerator(cfg, profileModels, 10*time.Hour, 2)
	if err != nil {
		t.Fatal(err)
	}
	var n [2]float64
	for j, ok := g.Next(); ok; j, ok = g.Next() {
		n[j.Model]++ // h1 = 0, h2 = 1
	}
	total := n[0] + n[1]
	if sd := math.Sqrt(total * 0.75 * 0.25); math.Abs(n[0]-0.75*total) > 4*sd {
		t.Errorf("h1 got %g of %g batches, want %.0f ± %.0f", n[0], total, 0.75*total, 4*sd)
	}
}

func TestProfileErrors(t *testing.T) {
	hourly := func(i int, v float64) []float64 {
		w := make([]float64, 24)
		for k := range w {
			w[k] = 1
		}
		w[i] = v
		return w
	}
	for _, tc := range []struct {
		edit func(*Config)
		path string
	}{
		{func(c *Config) { c.Batches.Profile.Hourly = hourly(3, -1) }, "batches.profile.hourly[3]"},
		{func(c *Config) { c.Batches.Profile.Hourly = hourly(5, math.NaN()) }, "batches.profile.hourly[5]"},
		{func(c *Config) { c.Background.Profile.Hourly = hourly(0, math.Inf(1)) }, "background.profile.hourly[0]"},
		{func(c *Config) { c.Batches.Profile.Hourly = []float64{1, 2} }, "batches.profile.hourly"},
		{func(c *Config) { c.Batches.Profile.Weekday = make([]float64, 7) }, "batches.profile.weekday"},
		{func(c *Config) {
			c.Batches.Profile.Weekday = []float64{1, 1, 1, 1, 1, math.MaxFloat64, math.MaxFloat64}
		}, "batches.profile.weekday"},
		{func(c *Config) { c.Batches.Profile.Start = -time.Hour }, "batches.profile.start"},
		{func(c *Config) { c.Batches.RatePerHour = math.NaN() }, "batches.rate_per_hour"},
		{func(c *Config) { c.Background.RatePerHour = math.Inf(1) }, "background.rate_per_hour"},
		{func(c *Config) { c.Models.HotWeights = []float64{1} }, "models.hot_weights"},
		{func(c *Config) { c.Models.HotWeights = []float64{1, -2} }, "models.hot_weights[1]"},
		{func(c *Config) { c.Models.HotWeights = []float64{0, 0} }, "models.hot_weights"},
	} {
		cfg := generatorConfig()
		tc.edit(&cfg)
		err := cfg.Validate(profileModels)
		var fe *field.Error
		if !errors.As(err, &fe) || fe.Path != tc.path {
			t.Errorf("%s: got %v, want a field error at that path", tc.path, err)
		}
	}
}
