package agentlog

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evalsched/lab/workloads"
)

// ImportOptions are what Import needs besides the logs.
type ImportOptions struct {
	Catalogue []string          // the scenario's models
	Mapping   map[string]string // recorded name → catalogue model
	// TempDir holds the sorts' temporary files ("": the system's);
	// SortBudget is the bytes of records each sort holds in memory (0: 32 MiB).
	TempDir    string
	SortBudget int
	// Skip receives each record that could not be used, in input order;
	// Note the notes, once the trace is written.
	Skip func(*Problem)
	Note func(string)
}

// Import reads the logs of a format and writes their job trace through
// write, which is called once, with the function that writes the trace,
// and only when the import can succeed (no unknown model, a usable job):
// the same trace, problems and notes as Collect, Jobs and WriteJobs give,
// in memory that does not grow with the logs. The jobs go through two
// sorts on disk (by id, to number repeated ids; by arrival, the trace's
// order), each holding SortBudget bytes in memory; what is kept besides
// is a count per recorded model name. It returns what the jobs hold and
// how many records could not be used.
func Import(format Format, paths []string, o ImportOptions, write func(func(io.Writer) error) error) (Summary, int, error) {
	var sum Summary
	known := make(map[string]bool, len(o.Catalogue))
	for _, m := range o.Catalogue {
		known[m] = true
	}
	for _, rec := range slices.Sorted(maps.Keys(o.Mapping)) {
		if m := o.Mapping[rec]; !known[m] {
			return sum, 0, fmt.Errorf("--map %s=%s: %q is not a model of the scenario (its catalogue: %s)", rec, m, m, strings.Join(o.Catalogue, ", "))
		}
	}
	resolve := func(rec string) (string, bool) {
		if m, ok := o.Mapping[rec]; ok {
			return m, true
		}
		return rec, known[rec]
	}
	files, err := Expand(format, paths)
	if err != nil {
		return sum, 0, err
	}
	byID := newSorter(o.TempDir, o.SortBudget)
	defer byID.close()
	notes := newSorter(o.TempDir, o.SortBudget/8)
	defer notes.close()
	var sortErr error
	addNote := func(key []byte, s string) {
		if err := notes.add(key, []byte(s)); err != nil && sortErr == nil {
			sortErr = err
		}
	}
	unknown, providers := map[string]int{}, map[string]string{}
	skipped, readerNotes := 0, int64(0)
	var earliest int64
	var key []byte
	var e enc
	err = readFiles(format, files, Sink{
		Skip: func(p *Problem) {
			skipped++
			if o.Skip != nil {
				o.Skip(p)
			}
		},
		Note: func(s string) { addNote(keyInt(keyInt(nil, 0), readerNotes), s); readerNotes++ },
		Session: func(s *Session) {
			for _, call := range s.Calls {
				if _, ok := resolve(call.Model); !ok {
					unknown[call.Model]++
					if call.Provider != "" && providers[call.Model] == "" {
						providers[call.Model] = call.Provider
					}
				}
			}
			sum.Jobs++
			sum.Turns += len(Turns(s.Calls))
			sum.Calls += len(s.Calls)
			sum.Tools += len(s.Tools)
			for _, t := range s.Tools {
				if t.Failed {
					sum.FailedTools++
				}
			}
			if sum.Jobs == 1 || s.Start < earliest {
				earliest = s.Start
			}
			if len(unknown) > 0 {
				return // the import is refused: no job is written
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
				addNote(keyInt(keyInt(nil, 1), s.order), fmt.Sprintf("%s: %d of %d calls are on other models than %s; the job runs them all on %s", s.ID, others, len(s.Calls), rec, model))
			}
			invalid := ""
			if err := plan.Validate("plan"); err != nil {
				invalid = err.Error()
			}
			key = keyInt(keyInt(keyStr(key[:0], s.ID), s.Start), s.order)
			e.b = e.b[:0]
			e.str(nonEmpty(s.Project, "unknown"))
			e.str(nonEmpty(s.Batch, "unknown"))
			e.str(model)
			e.str(invalid)
			e.str(string(plan.AppendJSON(nil)))
			if err := byID.add(key, e.b); err != nil && sortErr == nil {
				sortErr = err
			}
		},
	}, o.TempDir, o.SortBudget)
	if err == nil {
		err = sortErr
	}
	if err != nil {
		return sum, skipped, err
	}
	if len(unknown) > 0 {
		return sum, skipped, &UnknownModelsError{Names: slices.Sorted(maps.Keys(unknown)), Calls: unknown, Providers: providers}
	}
	if sum.Jobs == 0 {
		return sum, skipped, &NoJobsError{Skipped: skipped}
	}
	// Number repeated ids in arrival order: by id, then arrival and input
	// order, each job is the n-th of its id.
	byArrival := newSorter(o.TempDir, o.SortBudget)
	defer byArrival.close()
	prev, n := "", 0
	err = byID.each(func(k, v []byte) error {
		id, rest := splitKeyStr(k)
		if id != prev || n == 0 {
			prev, n = id, 0
		}
		n++
		start, order := int64(beUint(rest[:8])^(1<<63)), int64(beUint(rest[8:16])^(1<<63))
		final := id
		key = keyInt(keyStr(keyInt(key[:0], start), id), order)
		if n > 1 {
			final = fmt.Sprintf("%s#%d", id, n)
			addNote(append(keyInt(nil, 2), key...), fmt.Sprintf("job id %s repeats in the logs: the later one is %s", id, final))
		}
		if err := checkSpan(id, start, earliest); err != nil {
			return err
		}
		e.b = e.b[:0]
		e.str(final)
		e.int(start - earliest)
		e.b = append(e.b, v...)
		return byArrival.add(key, e.b)
	})
	if err == nil {
		err = sortErr
	}
	if err != nil {
		return sum, skipped, err
	}
	err = write(func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		var line []byte
		if err := byArrival.each(func(_, v []byte) error {
			d := dec{b: v}
			id, arrival := d.str(), d.int()
			project, batch, model, invalid, plan := d.str(), d.str(), d.str(), d.str(), d.str()
			if d.bad {
				return errBadRun
			}
			if invalid != "" {
				return fmt.Errorf("job %s: %s", id, invalid)
			}
			line = appendJobLine(line[:0], id, time.Duration(arrival), Account, project, batch, model, plan)
			if len(line) > workloads.MaxLine {
				return fmt.Errorf("job %s: its trace line would be %d bytes, longer than the %d a trace's line may be (the trace's readers would refuse it): %s",
					truncate(id, 60), len(line), workloads.MaxLine, "an id or a name that long, or a plan that large, is not imported")
			}
			_, err := bw.Write(line)
			return err
		}); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return sum, skipped, err
	}
	err = notes.each(func(_, v []byte) error {
		if o.Note != nil {
			o.Note(string(v))
		}
		return nil
	})
	return sum, skipped, err
}

// checkSpan refuses a job whose arrival, its start less the logs'
// earliest, overflows the nanosecond clock (starts some 292 years apart:
// parseTime reads 1678 to 2261), which would be written as a wrong one.
func checkSpan(id string, start, earliest int64) error {
	if start-earliest >= 0 { // earliest is the least start: negative is overflow
		return nil
	}
	return fmt.Errorf("job %s starts at %s, more than 292 years after the logs' first job (%s): its arrival cannot be represented; import the logs apart",
		truncate(id, 60), time.Unix(0, start).UTC().Format(time.RFC3339), time.Unix(0, earliest).UTC().Format(time.RFC3339))
}

// splitKeyStr reads a keyStr part off the front of k.
func splitKeyStr(k []byte) (string, []byte) {
	var b []byte
	for i := 0; i+1 < len(k); i++ {
		if k[i] != 0 {
			b = append(b, k[i])
			continue
		}
		if k[i+1] == 1 {
			return string(b), k[i+2:]
		}
		b = append(b, 0) // 0x00 0xff
		i++
	}
	return string(b), nil
}

func beUint(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

// appendJobLine appends one plan job of a JSON Lines job trace.
func appendJobLine(b []byte, id string, arrival time.Duration, account, project, batch, model, plan string) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, workloads.TraceVersion, 10)
	b = appendString(b, "id", id)
	b = append(b, `,"arrival_s":`...)
	b = appendSeconds(b, arrival)
	b = appendString(b, "account", account)
	b = appendString(b, "project", project)
	b = appendString(b, "batch", batch)
	b = appendString(b, "model", model)
	b = append(b, `,"plan":`...)
	b = append(b, plan...)
	return append(b, "}\n"...)
}
