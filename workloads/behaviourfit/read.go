package behaviourfit

import (
	"fmt"
	"io"

	"github.com/evalsched/lab/workloads"
)

// maxFitCalls bounds the calls a fit reads: the sample grows with them
// (about 50 bytes a call), and a trace that never ends (a pipe) must be
// refused, not read until memory runs out. A variable for the tests.
var maxFitCalls = 10_000_000

// FromTrace reads the plan jobs of a job trace into a Sample. A bad record
// stops it (the trace is refused, as a run refuses it); class jobs carry
// no recorded plan and are counted apart.
func FromTrace(r io.Reader, name string, format workloads.JobFormat, catalogue []string, classes map[string]*workloads.Behaviour) (s *Sample, classJobs int, err error) {
	tr := workloads.NewTraceReader(r, name, format, catalogue, classes, workloads.TraceOptions{})
	s = &Sample{}
	for job, ok := tr.Next(); ok; job, ok = tr.Next() {
		if job.Behaviour.Plan == nil {
			classJobs++
			continue
		}
		s.Add(job.Behaviour.Plan)
		if s.Calls > maxFitCalls {
			return nil, 0, fmt.Errorf("%s: more than %d calls: a fit reads at most that many (fit a part of the trace; an input that never ends?)", name, maxFitCalls)
		}
	}
	if err := tr.Err(); err != nil {
		return nil, 0, err
	}
	if s.Jobs == 0 {
		return nil, classJobs, fmt.Errorf("%s: no plan jobs to fit (%d class jobs: a class job's calls are drawn, not recorded)", name, classJobs)
	}
	return s, classJobs, nil
}
