package agentlog

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evalsched/lab/workloads"
)

// Collection is what the readers found in a set of logs.
type Collection struct {
	Sessions []*Session
	Skipped  []*Problem // every record that could not be used, in input order
	Notes    []string
}

// Collect reads the logs (files and directories) of a format.
func Collect(format Format, paths []string) (*Collection, error) {
	files, err := Expand(format, paths)
	if err != nil {
		return nil, err
	}
	c := &Collection{}
	err = ReadFiles(format, files, Sink{
		Session: func(s *Session) { c.Sessions = append(c.Sessions, s) },
		Skip:    func(p *Problem) { c.Skipped = append(c.Skipped, p) },
		Note:    func(s string) { c.Notes = append(c.Notes, s) },
	})
	slices.SortStableFunc(c.Sessions, func(a, b *Session) int { return cmp.Compare(a.order, b.order) })
	return c, err
}

// Job is an imported job, ready to write as a plan job of a job trace.
type Job struct {
	ID                      string
	Arrival                 time.Duration
	Account, Project, Batch string
	Model                   string // in the scenario's catalogue
	Recorded                string // the model name the log gave
	Plan                    *workloads.CallPlan
}

// Account is the account of every imported job: the logs name no account.
const Account = "imported"

// UnknownModelsError refuses an import: recorded model names that are
// neither in the scenario's catalogue nor mapped to one of its models.
type UnknownModelsError struct {
	Names     []string // sorted; each with its calls in Calls
	Calls     map[string]int
	Providers map[string]string // the provider the log gave, if any
}

func (e *UnknownModelsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d recorded model names are not in the scenario's catalogue; map each to a scenario model (--map RECORDED=MODEL, or a --map file):", len(e.Names))
	for _, n := range e.Names {
		fmt.Fprintf(&b, "\n  %s (%d calls", n, e.Calls[n])
		if p := e.Providers[n]; p != "" {
			fmt.Fprintf(&b, ", provider %s", p)
		}
		b.WriteString(")")
	}
	return b.String()
}

// NoJobsError says nothing in the logs could be used.
type NoJobsError struct{ Skipped int }

func (e *NoJobsError) Error() string {
	return fmt.Sprintf("no usable job in the logs (%d records could not be used)", e.Skipped)
}

// Jobs maps each session's model into catalogue (through mapping, recorded
// name → catalogue model; a recorded name already in the catalogue needs
// no mapping) and returns the jobs in arrival order: arrival is the
// session's start less the earliest start, ties broken by id. A job's
// model is the model of most of its calls; calls on other models are
// kept (the lab's job runs on one model) and said in c.Notes, as is a
// repeated job id (the later one gets a #N suffix).
func (c *Collection) Jobs(catalogue []string, mapping map[string]string) ([]Job, error) {
	known := make(map[string]bool, len(catalogue))
	for _, m := range catalogue {
		known[m] = true
	}
	for rec, m := range mapping {
		if !known[m] {
			return nil, fmt.Errorf("--map %s=%s: %q is not a model of the scenario (its catalogue: %s)", rec, m, m, strings.Join(catalogue, ", "))
		}
	}
	resolve := func(rec string) (string, bool) {
		if m, ok := mapping[rec]; ok {
			return m, true
		}
		return rec, known[rec]
	}
	unknown, providers := map[string]int{}, map[string]string{}
	for _, s := range c.Sessions {
		for _, call := range s.Calls {
			if _, ok := resolve(call.Model); !ok {
				unknown[call.Model]++
				if call.Provider != "" && providers[call.Model] == "" {
					providers[call.Model] = call.Provider
				}
			}
		}
	}
	if len(unknown) > 0 {
		return nil, &UnknownModelsError{Names: slices.Sorted(maps.Keys(unknown)), Calls: unknown, Providers: providers}
	}
	if len(c.Sessions) == 0 {
		return nil, &NoJobsError{Skipped: len(c.Skipped)}
	}
	earliest := c.Sessions[0].Start
	for _, s := range c.Sessions {
		earliest = min(earliest, s.Start)
	}
	jobs := make([]Job, 0, len(c.Sessions))
	for _, s := range c.Sessions {
		if err := checkSpan(s.ID, s.Start, earliest); err != nil {
			return nil, err
		}
		plan, rec := s.Plan()
		model, _ := resolve(rec)
		others := 0
		for _, call := range s.Calls {
			if m, _ := resolve(call.Model); m != model {
				others++
			}
		}
		if others > 0 {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: %d of %d calls are on other models than %s; the job runs them all on %s", s.ID, others, len(s.Calls), rec, model))
		}
		jobs = append(jobs, Job{ID: s.ID, Arrival: time.Duration(s.Start - earliest), Account: Account,
			Project: nonEmpty(s.Project, "unknown"), Batch: nonEmpty(s.Batch, "unknown"), Model: model, Recorded: rec, Plan: plan})
	}
	slices.SortStableFunc(jobs, func(a, b Job) int {
		if a.Arrival != b.Arrival {
			return cmp.Compare(int64(a.Arrival), int64(b.Arrival))
		}
		return strings.Compare(a.ID, b.ID)
	})
	seen := map[string]int{}
	for i := range jobs {
		id := jobs[i].ID
		if n := seen[id]; n > 0 {
			jobs[i].ID = fmt.Sprintf("%s#%d", id, n+1)
			c.Notes = append(c.Notes, fmt.Sprintf("job id %s repeats in the logs: the later one is %s", id, jobs[i].ID))
		}
		seen[id]++
	}
	return jobs, nil
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// WriteJobs writes jobs as a JSON Lines job trace (docs/reference/traces.md): plan
// jobs, no seed (a reader derives it from the id), no grading.
func WriteJobs(w io.Writer, jobs []Job) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var b []byte
	for _, j := range jobs {
		if err := j.Plan.Validate("plan"); err != nil {
			return fmt.Errorf("job %s: %v", j.ID, err)
		}
		b = appendJobLine(b[:0], j.ID, j.Arrival, j.Account, j.Project, j.Batch, j.Model, string(j.Plan.AppendJSON(nil)))
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func appendString(b []byte, name, v string) []byte {
	q, _ := json.Marshal(v)
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return append(b, q...)
}

// appendSeconds writes a non-negative duration as exact decimal seconds.
func appendSeconds(b []byte, d time.Duration) []byte {
	b = strconv.AppendInt(b, int64(d/time.Second), 10)
	ns := int64(d % time.Second)
	if ns == 0 {
		return b
	}
	frac := []byte(fmt.Sprintf("%09d", ns))
	for frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	b = append(b, '.')
	return append(b, frac...)
}

// Summary counts what a set of jobs holds.
type Summary struct {
	Jobs, Turns, Calls, Tools, FailedTools int
}

// Summarise counts the sessions' turns, calls and tools.
func (c *Collection) Summarise() Summary {
	var s Summary
	for _, sess := range c.Sessions {
		s.Jobs++
		s.Turns += len(Turns(sess.Calls))
		s.Calls += len(sess.Calls)
		s.Tools += len(sess.Tools)
		for _, t := range sess.Tools {
			if t.Failed {
				s.FailedTools++
			}
		}
	}
	return s
}
