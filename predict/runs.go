package predict

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/evalsched/lab/workloads/agentlog"
)

// Process is one inspect process: the logs sharing a run_id (one `inspect
// eval` of several tasks, an eval-set), which share the process's
// connection pools, replayed together.
type Process struct {
	ID      string
	Logs    []*agentlog.Run // in the order their tasks were created
	Samples []*Sample       // task by task, each task's in queue order
	Models  []string        // sorted
	// Start is the process's start (the earliest log created/started),
	// Unix ns: the samples are queued then.
	Start int64
	// Handoff is the harness's own time to start a sample in a freed slot,
	// estimated from other runs (Check: their median), added to each
	// sample's setup; handoffs are the other runs' own, one drawn per seed.
	Handoff  time.Duration
	handoffs []time.Duration
}

// Sample is one sample's own work, as the replay takes it: what it was
// given, never when it ran.
type Sample struct {
	ID    string
	Task  int // index in Process.Logs
	Model string
	Turns []agentlog.Turn
	// Setup is the time from the sample's admission to its first call,
	// Gaps[i] from turn i's last answer to turn i+1's first call, and
	// Trailing from the last answer to the sample's end (scoring without
	// a model, teardown): the sample's own work between calls.
	Setup, Trailing time.Duration
	Gaps            []time.Duration
	Calls           int
	// Recorded: the sample's admission and end, Unix ns (0: not
	// recorded), for scoring only.
	Admitted, Ended int64
	session         *agentlog.Session
}

// Load reads Inspect logs (files and directories) and groups their
// samples into processes; beside them, what was skipped and the reader's
// notes (calls retried, a log without a header).
func Load(paths []string) ([]*Process, []*agentlog.Problem, []string, error) {
	col, err := agentlog.Collect(agentlog.Inspect, paths)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(col.Sessions) == 0 {
		return nil, col.Skipped, col.Notes, &NoSampleError{Skipped: col.Skipped}
	}
	byID := map[string]*Process{}
	var procs []*Process
	// A sample read twice (a log given twice, a directory and one of its
	// logs, two copies of a log) would double its run: refused.
	held := map[string]string{}
	var dup *DuplicateSampleError
	for _, s := range col.Sessions {
		run := s.Run
		key := run.RunID
		if key == "" {
			key = run.File // a log without a run_id is its own process
		}
		if f, ok := held[key+"\x00"+s.ID]; ok {
			if dup == nil {
				dup = &DuplicateSampleError{First: f, Second: run.File, Run: key, Task: s.Project, Sample: s.ID}
			}
			if f == dup.First && run.File == dup.Second {
				dup.Count++
				dup.Sample = min(dup.Sample, s.ID)
			}
			continue
		}
		held[key+"\x00"+s.ID] = run.File
		p := byID[key]
		if p == nil {
			p = &Process{ID: key}
			byID[key] = p
			procs = append(procs, p)
		}
		task := slices.Index(p.Logs, run)
		if task < 0 {
			task = len(p.Logs)
			p.Logs = append(p.Logs, run)
		}
		p.Samples = append(p.Samples, newSample(s, task))
	}
	if dup != nil {
		return nil, nil, nil, dup
	}
	for _, p := range procs {
		p.finish()
	}
	slices.SortFunc(procs, func(a, b *Process) int { return cmp.Or(cmp.Compare(a.Start, b.Start), strings.Compare(a.ID, b.ID)) })
	return procs, col.Skipped, col.Notes, nil
}

// finish orders the process's tasks and samples and sets its start.
func (p *Process) finish() {
	// Tasks in creation order (then file name); samples within a task in
	// the harness's queue order (then id).
	order := make([]int, len(p.Logs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		la, lb := p.Logs[a], p.Logs[b]
		return cmp.Or(cmp.Compare(la.Created, lb.Created), strings.Compare(la.File, lb.File))
	})
	rank := make([]int, len(order))
	logs := make([]*agentlog.Run, len(order))
	for r, i := range order {
		rank[i] = r
		logs[r] = p.Logs[i]
	}
	p.Logs = logs
	for _, s := range p.Samples {
		s.Task = rank[s.Task]
	}
	slices.SortStableFunc(p.Samples, func(a, b *Sample) int {
		oa, ob := a.session.Order, b.session.Order
		if oa < 0 {
			oa = 1 << 30
		}
		if ob < 0 {
			ob = 1 << 30
		}
		return cmp.Or(cmp.Compare(a.Task, b.Task), cmp.Compare(oa, ob), strings.Compare(a.ID, b.ID))
	})
	seen := map[string]bool{}
	for _, s := range p.Samples {
		for _, t := range s.Turns {
			for _, c := range t.Calls {
				seen[c.Model] = true
			}
		}
	}
	for m := range seen {
		p.Models = append(p.Models, m)
	}
	slices.Sort(p.Models)
	for _, l := range p.Logs {
		for _, t := range []int64{l.Created, l.Started} {
			if t > 0 && (p.Start == 0 || t < p.Start) {
				p.Start = t
			}
		}
	}
}

// newSample takes a session's own work: its turns (a fan-out only where
// the log shows calls made while others were outstanding) and the time
// between them.
func newSample(s *agentlog.Session, task int) *Sample {
	turns := agentlog.Turns(s.Calls)
	smp := &Sample{ID: s.ID, Task: task, Turns: turns, Calls: len(s.Calls), Admitted: s.Admitted, Ended: s.Ended, session: s}
	count := map[string]int{}
	for _, c := range s.Calls {
		count[c.Model]++
	}
	best := -1
	for m, n := range count {
		if n > best || (n == best && m < smp.Model) {
			smp.Model, best = m, n
		}
	}
	if s.Admitted > 0 {
		smp.Setup = time.Duration(max(0, turns[0].Start-s.Admitted))
	}
	for i := 0; i+1 < len(turns); i++ {
		smp.Gaps = append(smp.Gaps, time.Duration(turns[i+1].Start-turns[i].End))
	}
	if last := turns[len(turns)-1].End; s.Ended > last {
		smp.Trailing = time.Duration(s.Ended - last)
	}
	return smp
}

// Version is the process's inspect_ai version (its first log's).
func (p *Process) Version() string {
	for _, l := range p.Logs {
		if l.Version != "" {
			return l.Version
		}
	}
	return ""
}

// Name is a short name for the process: its first log's file name, with
// the count of the others.
func (p *Process) Name() string {
	n := baseName(p.Logs[0].File)
	if len(p.Logs) > 1 {
		n += fmt.Sprintf(" (+%d logs)", len(p.Logs)-1)
	}
	return n
}

func baseName(f string) string {
	if i := strings.LastIndexByte(f, '/'); i >= 0 {
		return f[i+1:]
	}
	return f
}

// NoSampleError refuses logs of which no sample could be used; it names
// the first records that could not be, and why.
type NoSampleError struct {
	Skipped []*agentlog.Problem
}

func (e *NoSampleError) Error() string {
	var b strings.Builder
	b.WriteString("no usable sample in the logs")
	for i, p := range e.Skipped {
		if i == 5 {
			fmt.Fprintf(&b, "; and %d more", len(e.Skipped)-5)
			break
		}
		b.WriteString("; ")
		b.WriteString(p.Error())
	}
	return b.String()
}

// DuplicateSampleError refuses logs that hold the same sample (run_id,
// task, sample id and epoch) twice: the first pair of files found, how
// many samples they share, and the first of those by id.
type DuplicateSampleError struct {
	First, Second string // the files
	Run, Task     string
	Sample        string // the session id: eval/task/sample/eEPOCH
	Count         int
}

func (e *DuplicateSampleError) Error() string {
	id := e.Sample
	if i := strings.LastIndex(id, "/e"); i >= 0 {
		id = fmt.Sprintf("%s epoch %s", id[:i], id[i+2:])
	}
	if i := strings.Index(id, "/"+e.Task+"/"); i >= 0 && e.Task != "" {
		id = id[i+len(e.Task)+2:]
	}
	where := e.First + " and " + e.Second + " both hold"
	if e.First == e.Second {
		where = e.First + " is given twice: it holds"
	}
	return fmt.Sprintf("%s the same %d sample(s) of task %s, sample %s first (run_id %s): a sample read twice would double its run; give each log once", where, e.Count, e.Task, id, e.Run)
}

// missingTasks are the logs beside the process's logs (in their
// directories) that share its run_id but were not given, each as "task
// (file)": the run's other tasks, whose calls shared its connection pools.
func missingTasks(p *Process) []string {
	if p.Logs[0].RunID == "" {
		return nil
	}
	var given []os.FileInfo
	var dirs []string
	for _, l := range p.Logs {
		if fi, err := os.Stat(l.File); err == nil {
			given = append(given, fi)
		}
		if d := filepath.Dir(l.File); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	var out []string
	for _, d := range dirs {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			name := strings.ToLower(e.Name())
			if e.IsDir() || !(strings.HasSuffix(name, ".eval") || strings.HasSuffix(name, ".json")) {
				continue
			}
			f := filepath.Join(d, e.Name())
			fi, err := os.Stat(f)
			if err != nil || slices.ContainsFunc(given, func(g os.FileInfo) bool { return os.SameFile(g, fi) }) {
				continue
			}
			if r, err := agentlog.InspectHeader(f); err == nil && r.RunID == p.Logs[0].RunID {
				out = append(out, fmt.Sprintf("%s (%s)", r.Task, f))
			}
		}
	}
	return out
}

// siblingWarnings say when the run's other tasks were not given: their
// calls held connections of the same pools unseen, so a call that queued
// behind theirs looks as if it took a connection at once and its wait
// enters the fitted latency.
func siblingWarnings(p *Process) []string {
	const why = "they shared its connection pools, so a call that queued behind their calls is taken as having had a connection at once: the fitted latency may include waits, and the replay leaves their calls out; give every log of the run"
	if miss := missingTasks(p); len(miss) > 0 {
		return []string{fmt.Sprintf("run %s has tasks not given: %s; %s", p.ID, strings.Join(miss, ", "), why)}
	}
	if l := p.Logs[0]; len(p.Logs) == 1 && l.MaxTasks > 1 {
		return []string{fmt.Sprintf("%s sets max_tasks %d and is the only log of run %s given: if the run had other tasks, %s", l.File, l.MaxTasks, p.ID, why)}
	}
	return nil
}
