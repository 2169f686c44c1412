package gatewaylog

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/workloads"
)

// Options are an import's settings.
type Options struct {
	// Catalogue is the scenario's models; Mapping maps recorded model
	// names to them (--map).
	Catalogue []string
	Mapping   map[string]string
	// Skip is told of the first rows not replayed of each kind (cache
	// hits, failures), FILE:LINE: field: reason; Stats counts them all.
	Skip func(string)
}

// skipShown is how many rows of each kind not replayed Skip is told of.
const skipShown = 5

// Stats describe an import.
type Stats struct {
	Rows, Calls, CacheHits, Failures int
	Models, Teams, Keys              int           // distinct, among the calls
	Span                             time.Duration // first call to last
}

// ErrNoCalls is an import with no row to replay.
var ErrNoCalls = errors.New("no call to replay (every row a cache hit or a failure, or no rows)")

// UnknownModelsError lists the recorded models that are neither in the
// scenario nor mapped.
type UnknownModelsError struct {
	Names  []string
	Counts []int
	At     []string // FILE:LINE of each name's first row
}

func (e *UnknownModelsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d recorded model(s) not in the scenario: map each with --map RECORDED=MODEL or a --map file:", len(e.Names))
	for i, n := range e.Names {
		fmt.Fprintf(&b, "\n  %q: %d rows (first at %s)", n, e.Counts[i], e.At[i])
	}
	return b.String()
}

// importer holds the rows of an import's files.
type importer struct {
	opt   Options
	files []string
	rows  []row
	names map[string]int32 // models, teams and keys as recorded
	list  []string
	shown [3]int
}

// Import reads LiteLLM spend-log files and writes them, through write, as
// a gateway request trace (workloads.RequestGateway) of the calls in time
// order. It writes nothing when a row is bad, a model unknown, or no call
// is left.
func Import(paths []string, opt Options, write func(func(io.Writer) error) error) (Stats, error) {
	imp := &importer{opt: opt, files: paths, names: map[string]int32{}}
	for i, p := range paths {
		if err := imp.readFile(p, int32(i)); err != nil {
			return Stats{}, err
		}
	}
	model, err := imp.resolveModels()
	if err != nil {
		return Stats{}, err
	}
	if err := imp.checkRepeats(); err != nil {
		return Stats{}, err
	}
	slices.SortFunc(imp.rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line))
	})
	st := Stats{Rows: len(imp.rows)}
	var first, last *row
	models, teams, keys := map[int32]bool{}, map[int32]bool{}, map[int32]bool{}
	for i := range imp.rows {
		r := &imp.rows[i]
		switch r.outcome {
		case CacheHit:
			st.CacheHits++
			continue
		case Failed:
			st.Failures++
			continue
		}
		st.Calls++
		if first == nil {
			first = r
		}
		last = r
		models[model[r.model]] = true
		if r.team >= 0 {
			teams[r.team] = true
		}
		if r.key >= 0 {
			keys[r.key] = true
		}
	}
	if st.Calls == 0 {
		return st, fmt.Errorf("%s: %w", strings.Join(paths, ", "), ErrNoCalls)
	}
	st.Models, st.Teams, st.Keys = len(models), len(teams), len(keys)
	st.Span = time.Duration(last.start-first.start) * time.Microsecond
	if st.Span > workloads.MaxDuration {
		return st, imp.rowErr(last, "startTime", fmt.Sprintf("%v after the first call (at %s): a trace spans at most %v", st.Span.Round(time.Second), imp.at(first), workloads.MaxDuration))
	}
	err = write(func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		var buf []byte
		for i := range imp.rows {
			r := &imp.rows[i]
			if r.outcome != Replayed {
				continue
			}
			c := workloads.GatewayCall{At: r.start - first.start, In: int(r.in), Out: int(r.out),
				Model: imp.list[model[r.model]], LatencyMS: r.latencyMS}
			if r.team >= 0 {
				c.Team = imp.list[r.team]
			}
			if r.key >= 0 {
				c.Key = imp.list[r.key]
			}
			buf = c.AppendJSON(buf[:0])
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
	return st, err
}

func (imp *importer) at(r *row) string {
	return fmt.Sprintf("%s:%d", imp.files[r.file], r.line)
}

func (imp *importer) rowErr(r *row, path, msg string) error {
	return &field.Error{File: imp.files[r.file], Line: int(r.line), Path: path, Msg: msg}
}

// intern is name's index; -1 for "".
func (imp *importer) intern(name string, fr *fileReader, line int, path string) (int32, error) {
	if name == "" {
		return -1, nil
	}
	if i, ok := imp.names[name]; ok {
		return i, nil
	}
	if len(imp.list) >= maxNames {
		return 0, fr.errorf(line, path, "more than %d distinct models, teams and keys: not a gateway's log?", maxNames)
	}
	i := int32(len(imp.list))
	imp.names[name] = i
	imp.list = append(imp.list, name)
	return i, nil
}

// add checks one row and keeps it.
func (imp *importer) add(c [nFields]cell, fr *fileReader, line int) error {
	if len(imp.rows) >= MaxRows {
		return fr.errorf(line, "record", "more than %d rows (MaxRows): split the export by time", MaxRows)
	}
	bad := func(f int, msg string) error { return fr.errorf(line, fieldNames[f], "%s", msg) }
	var r row
	r.file, r.line = fr.file, int32(line)
	id, msg := parseName(c[fRequestID])
	if msg == "" && id == "" {
		msg = "missing"
	}
	if msg != "" {
		return bad(fRequestID, msg)
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	r.id = h.Sum64()
	if r.start, msg = parseTime(c[fStart]); msg != "" {
		return bad(fStart, msg)
	}
	end, msg := parseTime(c[fEnd])
	if msg != "" {
		return bad(fEnd, msg)
	}
	if end < r.start {
		return bad(fEnd, fmt.Sprintf("before startTime (by %v)", time.Duration(r.start-end)*time.Microsecond))
	}
	if d := time.Duration(end-r.start) * time.Microsecond; d > workloads.MaxDuration {
		return bad(fEnd, fmt.Sprintf("%v after startTime: not a request's latency", d.Round(time.Second)))
	}
	r.latencyMS = (end - r.start + 500) / 1000
	model, msg := parseName(c[fModel])
	if msg != "" {
		return bad(fModel, msg)
	}
	if model == "" {
		group, gmsg := parseName(c[fModelGroup])
		if gmsg != "" {
			return bad(fModelGroup, gmsg)
		}
		if group == "" {
			return bad(fModel, "missing (and no model_group)")
		}
		model = group
	}
	if r.in, msg = parseTokens(c[fPrompt]); msg != "" {
		return bad(fPrompt, msg)
	}
	if r.out, msg = parseTokens(c[fCompletion]); msg != "" {
		return bad(fCompletion, msg)
	}
	hit, msg := parseCacheHit(c[fCacheHit])
	if msg != "" {
		return bad(fCacheHit, msg)
	}
	failed, msg := parseStatus(c[fStatus])
	if msg != "" {
		return bad(fStatus, msg)
	}
	team, msg := parseName(c[fTeam])
	if msg != "" {
		return bad(fTeam, msg)
	}
	key, msg := parseName(c[fKey])
	if msg != "" {
		return bad(fKey, msg)
	}
	var err error
	if r.model, err = imp.intern(model, fr, line, "model"); err != nil {
		return err
	}
	if r.team, err = imp.intern(team, fr, line, "team_id"); err != nil {
		return err
	}
	if r.key, err = imp.intern(key, fr, line, "api_key"); err != nil {
		return err
	}
	switch {
	case failed:
		r.outcome = Failed
		imp.skip(r.outcome, fr, line, "status", "failure: not replayed (its tokens are not the call's)")
	case hit:
		r.outcome = CacheHit
		imp.skip(r.outcome, fr, line, "cache_hit", "True: answered from LiteLLM's cache, never sent to a provider")
	}
	imp.rows = append(imp.rows, r)
	return nil
}

func (imp *importer) skip(o Outcome, fr *fileReader, line int, path, reason string) {
	imp.shown[o]++
	if imp.opt.Skip != nil && imp.shown[o] <= skipShown {
		imp.opt.Skip(fmt.Sprintf("%s:%d: %s: %s", fr.path, line, path, reason))
	}
}

// resolveModels maps each recorded model name (an index of imp.list) to
// the index of its scenario model's name, interned too; every unknown name
// is listed.
func (imp *importer) resolveModels() (map[int32]int32, error) {
	inCatalogue := map[string]bool{}
	for _, m := range imp.opt.Catalogue {
		inCatalogue[m] = true
	}
	count := map[int32]int{}
	first := map[int32]*row{}
	for i := range imp.rows {
		r := &imp.rows[i]
		if count[r.model] == 0 {
			first[r.model] = r
		}
		count[r.model]++
	}
	out := map[int32]int32{}
	var unknown UnknownModelsError
	var recorded []int32
	for m := range count {
		recorded = append(recorded, m)
	}
	slices.SortFunc(recorded, func(a, b int32) int { return strings.Compare(imp.list[a], imp.list[b]) })
	for _, m := range recorded {
		name := imp.list[m]
		target := name
		if t, ok := imp.opt.Mapping[name]; ok {
			target = t
		}
		if !inCatalogue[target] {
			unknown.Names = append(unknown.Names, name)
			unknown.Counts = append(unknown.Counts, count[m])
			unknown.At = append(unknown.At, imp.at(first[m]))
			continue
		}
		idx, ok := imp.names[target]
		if !ok {
			idx = int32(len(imp.list))
			imp.names[target] = idx
			imp.list = append(imp.list, target)
		}
		out[m] = idx
	}
	if len(unknown.Names) > 0 {
		return nil, &unknown
	}
	return out, nil
}

// checkRepeats refuses a request_id met twice (by its hash: two ids that
// collide in 64 bits would be refused too, a chance of about n²/2⁶⁵).
func (imp *importer) checkRepeats() error {
	idx := make([]int32, len(imp.rows))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int {
		ra, rb := &imp.rows[a], &imp.rows[b]
		return cmp.Or(cmp.Compare(ra.id, rb.id), cmp.Compare(ra.file, rb.file), cmp.Compare(ra.line, rb.line))
	})
	for i := 1; i < len(idx); i++ {
		a, b := &imp.rows[idx[i-1]], &imp.rows[idx[i]]
		if a.id == b.id {
			return imp.rowErr(b, "request_id", "repeated (first at "+imp.at(a)+"): overlapping exports?")
		}
	}
	return nil
}
