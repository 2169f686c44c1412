package workloads

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"
	"time"
)

func generatorConfig() Config {
	return Config{
		Accounts: 3, ProjectsPerAccount: 2,
		Tiers:  TierConfig{Account: []float64{1, 1}, Pinned: map[string]int{"acct-000": 1}},
		Models: ModelMix{Hot: []string{"h1", "h2"}, HotShare: 0.6, ZipfS: 1.5, Exclude: []string{"judge"}},
		Batches: BatchProcess{RatePerHour: 200, Size: Dist{Kind: "pareto", Min: 10, Max: 500, Alpha: 1.2},
			Bursts: []Burst{{At: time.Hour, Batches: 5, Spread: time.Minute}}},
		Behaviours: map[string]Behaviour{"b": {}},
	}
}

// TestGeneratorProperties checks the stream against its configuration,
// counting batches directly: hot share, the excluded model never drawn, batch
// sizes within bounds, arrivals in order, the pinned account's tier.
func TestGeneratorProperties(t *testing.T) {
	models := []string{"h1", "h2", "judge", "c1", "c2", "c3"}
	g, err := NewGenerator(generatorConfig(), models, 10*time.Hour, 5)
	if err != nil {
		t.Fatal(err)
	}
	type batch struct {
		model, size int
		account     string
		tier        int8
	}
	batches := map[string]*batch{}
	var order []string
	var last time.Duration
	for j, ok := g.Next(); ok; j, ok = g.Next() {
		if j.Arrival < last {
			t.Fatalf("job %d arrives at %v before %v", j.ID, j.Arrival, last)
		}
		last = j.Arrival
		b := batches[j.Batch]
		if b == nil {
			b = &batch{model: j.Model, account: j.Account, tier: j.AccountTier}
			batches[j.Batch] = b
			order = append(order, j.Batch)
		}
		if j.Model != b.model {
			t.Fatalf("batch %s mixes models", j.Batch)
		}
		b.size++
	}
	if len(order) < 1500 {
		t.Fatalf("only %d batches in 10 h at 200/h", len(order))
	}
	hot := 0
	for _, name := range order {
		b := batches[name]
		if models[b.model] == "judge" {
			t.Fatalf("batch %s drawn on the excluded model", name)
		}
		if b.size < 10 || b.size > 500 {
			t.Errorf("batch %s has %d jobs, outside [10, 500]", name, b.size)
		}
		if b.model < 2 {
			hot++
		}
		if b.account == "acct-000" && b.tier != 1 {
			t.Errorf("pinned account acct-000 has tier %d, want 1", b.tier)
		}
	}
	share := float64(hot) / float64(len(order))
	// Binomial: 4 standard errors around 0.6.
	if se := math.Sqrt(0.6 * 0.4 / float64(len(order))); math.Abs(share-0.6) > 4*se {
		t.Errorf("hot share %.3f, want 0.6 ± %.3f", share, 4*se)
	}
}

func TestGeneratorExcludeErrors(t *testing.T) {
	models := []string{"h1", "h2", "judge"}
	for _, tc := range []struct {
		name    string
		exclude []string
		want    string
	}{
		{"unknown", []string{"nope"}, `models.exclude[0]: unknown model "nope"`},
		{"hot", []string{"h1"}, `models.exclude[0]: "h1" is also hot`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := generatorConfig()
			cfg.Models.Exclude = tc.exclude
			err := cfg.Validate(models)
			if err == nil || err.Error() != tc.want {
				t.Errorf("Validate = %v, want %s", err, tc.want)
			}
		})
	}
}

// TestBatchName against fmt's %07d, which it replaces for speed.
func TestBatchName(t *testing.T) {
	for _, seq := range []int{0, 1, 9, 10, 999, 123456, 999999, 1000000, 9999999, 10000000, 123456789} {
		if got, want := BatchName(seq), fmt.Sprintf("b%07d", seq); got != want {
			t.Errorf("BatchName(%d) = %q, want %q", seq, got, want)
		}
	}
	var g Generator
	for _, seq := range []int{1, 2, 255, 256, 257, 600, 9999990, 9999999, 10000000, 10000001, 3, 0, -300} {
		if got, want := g.batchName(seq), BatchName(seq); got != want {
			t.Errorf("batchName(%d) = %q, want %q", seq, got, want)
		}
	}
	for _, from := range []int{1, 99_000, 999_000, 9_999_000, 99_999_000} { // as the generator asks, in order
		var g Generator
		for seq := from; seq < from+3000; seq++ {
			if got, want := g.batchName(seq), BatchName(seq); got != want {
				t.Fatalf("batchName(%d) = %q, want %q", seq, got, want)
			}
		}
	}
}

// TestNextBatchName8: the word form counts up as the byte form does,
// carries included, for every 8-byte name that does not grow.
func TestNextBatchName8(t *testing.T) {
	for _, seq := range []int{0, 1, 8, 9, 99, 1999, 99999, 999999, 1234567, 9999998} {
		name := []byte(BatchName(seq))
		got := nextBatchName8(binary.LittleEndian.Uint64(name))
		want := BatchName(seq + 1)
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], got)
		if string(b[:]) != want {
			t.Errorf("nextBatchName8(%s) = %q, want %q", name, b[:], want)
		}
	}
}
