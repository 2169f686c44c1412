package workloads

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// countedSource gives n jobs (IDs 0..n-1), then ends with err; it counts
// the calls to Next.
type countedSource struct {
	n, calls int
	err      error
}

func (s *countedSource) Next() (Job, bool) {
	s.calls++
	if s.calls > s.n {
		return Job{}, false
	}
	return Job{ID: int64(s.calls - 1), Arrival: time.Duration(s.calls)}, true
}

func (s *countedSource) Err() error { return s.err }

// drainJobs reads src to its end.
func drainJobs(src Source) []Job {
	var jobs []Job
	for j, ok := src.Next(); ok; j, ok = src.Next() {
		jobs = append(jobs, j)
	}
	return jobs
}

// TestPrefetchGivesTheSourcesStream: read ahead, a source gives the same
// jobs in the same order and ends with the same error, at every length
// around the block size, and for the generator's own stream.
func TestPrefetchGivesTheSourcesStream(t *testing.T) {
	broken := errors.New("line 9: broken")
	for _, n := range []int{0, 1, prefetchBlock - 1, prefetchBlock, prefetchBlock + 1, prefetchBlock*(prefetchDepth+3) + 7} {
		for _, err := range []error{nil, broken} {
			want := drainJobs(&countedSource{n: n})
			p := Prefetch(&countedSource{n: n, err: err})
			got := drainJobs(p)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("n=%d: jobs differ (-want +got):\n%s", n, diff)
			}
			if !errors.Is(p.Err(), err) || (err == nil) != (p.Err() == nil) {
				t.Errorf("n=%d: stream ended with %v, want %v", n, p.Err(), err)
			}
			if _, ok := p.Next(); ok {
				t.Errorf("n=%d: a job after the end", n)
			}
			p.Close()
		}
	}
	want := drainJobs(generate(t, testConfig(), 4*time.Hour, 4))
	p := Prefetch(generate(t, testConfig(), 4*time.Hour, 4))
	defer p.Close()
	if got := drainJobs(p); !cmp.Equal(want, got) || len(want) < 2*prefetchBlock {
		t.Errorf("the generator's %d jobs came back as %d, or differ", len(want), len(got))
	}
}

// TestPrefetchNextPtr: NextPtr, alone or mixed with Next, gives the same
// jobs as Next, and a job it gives stays as it was through the next call
// (a consumer holds it while it fetches the one to follow). Under -race,
// a block handed back too early is also a race with the reader refilling
// it.
func TestPrefetchNextPtr(t *testing.T) {
	for _, n := range []int{0, 1, prefetchBlock, prefetchBlock + 1, prefetchBlock*(prefetchDepth+3) + 7} {
		for _, mixed := range []bool{false, true} {
			want := drainJobs(&countedSource{n: n})
			p := Prefetch(&countedSource{n: n})
			var got []Job
			var held *Job // the job the last call gave
			var heldWas Job
			for i := 0; ; i++ {
				var next *Job
				if mixed && i%3 == 1 {
					j, ok := p.Next()
					if ok {
						got = append(got, j)
					}
				} else if next = p.NextPtr(); next != nil {
					got = append(got, *next)
				}
				if held != nil && *held != heldWas {
					t.Fatalf("n=%d mixed=%v: job %d changed to %+v by the next call", n, mixed, heldWas.ID, *held)
				}
				if len(got) == i {
					break // the end of the stream
				}
				held = next
				if next != nil {
					heldWas = *next
				}
				// Let the reader run on: one that has been handed the
				// block of the held job refills it now.
				runtime.Gosched()
			}
			p.Close()
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("n=%d mixed=%v: jobs differ (-want +got):\n%s", n, mixed, diff)
			}
		}
	}
}

// TestPrefetchStopsOnClose: a consumer that stops early closes the
// reader, which then stops reading the source (within the blocks it had
// read ahead), and says nothing of an error it did not reach.
func TestPrefetchStopsOnClose(t *testing.T) {
	src := &countedSource{n: 1 << 20, err: errors.New("never reached")}
	p := Prefetch(src)
	for range 10 {
		if _, ok := p.Next(); !ok {
			t.Fatal("the stream ended early")
		}
	}
	if err := p.Err(); err != nil {
		t.Errorf("Err mid-stream: %v", err)
	}
	p.Close()
	calls := src.calls // the reader has stopped: no race
	if limit := prefetchBlock * (prefetchDepth + 3); calls > limit {
		t.Errorf("the source was read %d times after a consumer took 10 jobs (at most %d)", calls, limit)
	}
	p.Close() // twice is harmless
}
