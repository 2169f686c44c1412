package behaviourfit

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/evalsched/lab/workloads"
)

// endlessJobs is a job trace that never ends: plan jobs, one a line.
type endlessJobs struct {
	n   int
	buf []byte
}

func (e *endlessJobs) Read(p []byte) (int, error) {
	for len(e.buf) < len(p) {
		e.n++
		e.buf = fmt.Appendf(e.buf, `{"v":1,"id":"j%d","arrival_s":%d,"account":"a","project":"p","batch":"b","model":"m","plan":[{"calls":[[100,10,0,0,0]],"tool_s":1},{"calls":[[120,10,0,0,0]]}]}`+"\n", e.n, e.n)
	}
	n := copy(p, e.buf)
	e.buf = e.buf[n:]
	return n, nil
}

// TestFitBounded: a trace that never ends (a pipe fed forever) is refused
// at the limit of calls a fit reads, not read until memory runs out.
func TestFitBounded(t *testing.T) {
	defer func(n int) { maxFitCalls = n }(maxFitCalls)
	maxFitCalls = 10_000
	done := make(chan error, 1)
	go func() {
		_, _, err := FromTrace(io.Reader(&endlessJobs{}), "pipe", workloads.JobJSONL, []string{"m"}, nil)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "pipe: more than 10000 calls") {
			t.Fatalf("error %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("still reading after 20s")
	}
}
