package behaviourfit

import (
	"fmt"
	"io"

	"github.com/evalsched/lab/workloads"
)

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
	}
	if err := tr.Err(); err != nil {
		return nil, 0, err
	}
	if s.Jobs == 0 {
		return nil, classJobs, fmt.Errorf("%s: no plan jobs to fit (%d class jobs: a class job's calls are drawn, not recorded)", name, classJobs)
	}
	return s, classJobs, nil
}
