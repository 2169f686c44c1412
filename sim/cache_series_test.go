package sim

import (
	"testing"
	"time"

	"github.com/evalsched/lab/scenario"
)

// TestCacheSeriesFromTheLog: series.csv's cache columns, rebuilt from the
// event log alone. Each call's input and cache read are what its accept
// logged (the organisation counts all input, so the count is the input);
// a call missed its job's cache when the brute-force cache model's entry
// (cacheModel) was last used longer ago than the lifetime, by the gateway
// when the call was made within the lifetime of that use, else by the
// tool step. Bucketed by the sample
// that follows the call's answer, every series row carries the read share
// and misses of the buckets since the model's previous row.
func TestCacheSeriesFromTheLog(t *testing.T) {
	on := true
	const life = 20 * time.Second
	sc := smallScenario(t, func(sc *scenario.Scenario) {
		o := &sc.Organisations[1] // anthropic: five hot lanes
		o.RPM, o.TPM = 2000, 0
		o.ITPM, o.OTPM = 4_000_000, 600_000
		o.MeterAll, o.Input, o.Output = scenario.MeterTokenBucket, scenario.InputAll, scenario.OutputActual
		o.Cache = &scenario.CacheConfig{Enabled: &on, Lifetime: life, WriteFactor: ptr(1.25), ReadFactor: ptr(0.1)}
	})
	w := runLogged(t, sc, "scheduler", 4)
	interval := FromDuration(sc.SeriesInterval)
	type call struct {
		born, accepted Time
		job            int64
		in, read       int64
		miss           uint8
	}
	calls := map[int64]*call{}
	jobs := map[int64]*cacheModel{}
	type bucket struct {
		in, read      int64
		gateway, tool int32
	}
	buckets := map[[2]int64]*bucket{} // sample index, model
	var misses [3]int
	for _, r := range w.Log() {
		if r.Job < 0 || r.Call < 0 {
			continue
		}
		switch r.Event {
		case LogCallCreate:
			calls[r.Call] = &call{born: r.T, job: int64(r.Job)}
		case LogCacheReady:
			jobs[int64(r.Job)].pending[r.Call].ready = r.Ready
		case LogCallAccept:
			c := calls[r.Call]
			c.accepted, c.in, c.read = r.T, int64(r.CountIn), int64(r.CacheRead)
			if r.Org == 1 {
				j := jobs[c.job]
				if j == nil {
					j = newCacheModel()
					jobs[c.job] = j
				}
				_, c.miss = j.want(r.T, c.born, r.CountIn, FromDuration(life))
				j.accepted(r.T, r.Call, r.CountIn, r.CacheRead)
			}
			misses[c.miss]++
		case LogCallAnswer:
			c := calls[r.Call]
			k := [2]int64{int64((r.T + interval - 1) / interval), int64(r.Model)}
			b := buckets[k]
			if b == nil {
				b = &bucket{}
				buckets[k] = b
			}
			b.in += c.in
			b.read += c.read
			switch c.miss {
			case cacheMissGateway:
				b.gateway++
			case cacheMissTool:
				b.tool++
			}
		}
	}
	if misses[cacheMissGateway] == 0 || misses[cacheMissTool] == 0 {
		t.Fatalf("misses by cause %v: the test needs both causes", misses)
	}
	// A model's row covers the samples since its previous row: a sample
	// with nothing going on on the model writes none.
	prev := map[int32]int64{}
	rows, read := 0, 0
	for _, row := range w.Series() {
		k := int64(FromSeconds(row.T) / interval)
		from, ok := prev[row.Model]
		if !ok {
			from = -1
		}
		prev[row.Model] = k
		var b bucket
		for i := from + 1; i <= k; i++ {
			if x := buckets[[2]int64{i, int64(row.Model)}]; x != nil {
				b.in += x.in
				b.read += x.read
				b.gateway += x.gateway
				b.tool += x.tool
			}
		}
		want := float32(0)
		if b.in > 0 {
			want = float32(float64(b.read) / float64(b.in))
		}
		if row.CacheReadShare != want || row.CacheMissGateway != b.gateway || row.CacheMissTool != b.tool {
			t.Fatalf("row at %g s, model %d: share %g, misses %d gateway %d tool; from the log %g, %d, %d",
				row.T, row.Model, row.CacheReadShare, row.CacheMissGateway, row.CacheMissTool, want, b.gateway, b.tool)
		}
		rows++
		if want > 0 {
			read++
		}
	}
	if read == 0 {
		t.Fatal("no row read the cache")
	}
	t.Logf("%d rows, %d with cache reads; misses by cause %v", rows, read, misses)
}
