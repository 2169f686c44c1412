package sim

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/workloads"
)

// recordedTrace is a job trace of n jobs on model, the even-numbered ones
// with every call's cache read, cache write and max_tokens recorded, the
// odd ones with none, and per job what its calls add up to, computed from
// the numbers written (not read back).
func recordedTrace(n int, model string) (trace []byte, sums []tokenSums) {
	rng := rand.New(rand.NewPCG(7, 31))
	var b bytes.Buffer
	for j := range n {
		var s tokenSums
		fmt.Fprintf(&b, `{"v":1,"id":"j%d","arrival_s":%d,"account":"a","project":"a/p1","batch":"b1","model":%q,"plan":[`, j, j*2, model)
		turns := 1 + rng.IntN(4)
		for t := range turns {
			if t > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"calls":[`)
			for k := range 1 + rng.IntN(3) {
				if k > 0 {
					b.WriteByte(',')
				}
				in, out := 1000+rng.IntN(20000), 50+rng.IntN(800)
				s.in += int64(in)
				s.out += int64(out)
				if j%2 == 1 {
					fmt.Fprintf(&b, "[%d,%d]", in, out)
					s.metIn += int64(in)
					s.metOut += int64(out)
					s.uncached += int64(in)
					continue
				}
				read := 1 + rng.IntN(in/2)
				write := rng.IntN(in - read)
				maxTok := 0
				if rng.IntN(2) == 0 {
					maxTok = out + rng.IntN(4000)
				}
				fmt.Fprintf(&b, "[%d,%d,%d,%d,%d]", in, out, read, write, maxTok)
				s.read += int64(read)
				s.write += int64(write)
				s.uncached += int64(in - read - write)
				s.metIn += int64(in - read)
				if maxTok > 0 {
					s.metOut += int64(maxTok)
				} else {
					s.metOut += int64(out)
				}
			}
			b.WriteString(`],"tool_s":1}`)
		}
		b.WriteString("]}\n")
		sums = append(sums, s)
	}
	return b.Bytes(), sums
}

// tokenSums are a job's calls' tokens: input and output, the recorded
// cache read and write, the uncached rest, and what an organisation that
// counts input without cache reads and output as max_tokens at admission
// meters.
type tokenSums struct{ in, out, read, write, uncached, metIn, metOut int64 }

// TestRecordedCacheCountsReplayed: a replayed trace whose calls carry
// cache read and write and max_tokens is metered and billed on those
// counts as recorded. From the event log, each recorded job's accepted
// calls counted exactly the input less its recorded cache reads, the
// recorded reads, and its max_tokens (or output) at admission, as summed
// from the trace's numbers; the bill's token classes sum to the trace's
// too. With the organisation's cache on, the jobs without records get the
// cache model's split (some read the cache), the recorded ones still
// their records.
func TestRecordedCacheCountsReplayed(t *testing.T) {
	const model, jobs = "claude-sonnet-4.6", 300
	trace, want := recordedTrace(jobs, model)
	on, off := true, false
	for _, cache := range []bool{false, true} {
		t.Run(fmt.Sprintf("cache=%v", cache), func(t *testing.T) {
			sc := smallScenario(t, func(sc *scenario.Scenario) {
				sc.Warmup, sc.Duration = 0, 90*time.Minute
				o := &sc.Organisations[1] // anthropic
				o.RPM, o.TPM, o.ITPM, o.OTPM = 1e9, 0, 1e12, 1e12
				o.Input, o.Output = scenario.InputUncached, scenario.OutputMaxTokens
				o.Cache = &scenario.CacheConfig{Enabled: &off}
				if cache {
					o.Cache = &scenario.CacheConfig{Enabled: &on, Lifetime: 5 * time.Minute, WriteFactor: ptr(1.25), ReadFactor: ptr(0.1)}
				}
				cfgs := sc.ModelConfigs()
				for i := range cfgs {
					cfgs[i].Prices = scenario.Prices{Input: 3, CacheWrite: 3.75, CacheRead: 0.3, Output: 15}
				}
			})
			r := workloads.NewTraceReader(bytes.NewReader(trace), "recorded.jsonl", "jsonl", sc.Catalogue(), nil, workloads.TraceOptions{})
			w := runWorld(t, sc, "scheduler", Options{Seed: 5, Source: r, Log: true}, nil)
			calls := int64(0)
			got := make([]tokenSums, jobs)
			for _, rec := range w.Log() {
				if rec.Event != LogCallAccept || rec.Job < 0 {
					continue
				}
				calls++
				s := &got[rec.Job]
				s.metIn += int64(rec.CountIn)
				s.read += int64(rec.CacheRead)
				s.metOut += int64(rec.CountOut)
			}
			if c := w.Counts(); c.CallsFailed != 0 || c.JobsCompleted != jobs || c.CallsAnswered != calls {
				t.Fatalf("counts %+v with %d accepts: want every job completed and every call answered once", c, calls)
			}
			modelReads := int64(0)
			var wantAll tokenSums
			for j := range jobs {
				wj := tokenSums{metIn: want[j].metIn, read: want[j].read, metOut: want[j].metOut}
				gj := got[j]
				if j%2 == 1 && cache {
					// The model's split: input counted is what was not read.
					modelReads += gj.read
					wj.metIn, wj.read = want[j].metIn-gj.read, gj.read
				}
				if diff := cmp.Diff(wj, gj, cmp.AllowUnexported(tokenSums{})); diff != "" {
					t.Fatalf("job %d (recorded %v): metered counts (-trace +log):\n%s", j, j%2 == 0, diff)
				}
				wantAll.in += want[j].in
				wantAll.out += want[j].out
				wantAll.read += want[j].read
				wantAll.write += want[j].write
				wantAll.uncached += want[j].uncached
			}
			if cache && modelReads == 0 {
				t.Fatal("no unrecorded call read the cache: the cache model did not run")
			}
			if cache {
				return // the bill's split of the unrecorded calls is the model's
			}
			var bill tokenSums
			for _, l := range w.Measured().Lanes {
				bill.read += int64(l.Bill.CacheRead)
				bill.write += int64(l.Bill.CacheWrite)
				bill.uncached += int64(l.Bill.Uncached)
				bill.out += int64(l.Bill.Output)
			}
			bill.in = bill.read + bill.write + bill.uncached
			if diff := cmp.Diff(wantAll, bill, cmp.AllowUnexported(tokenSums{})); diff != "" {
				t.Errorf("bill (-trace +bill):\n%s", diff)
			}
		})
	}
}
