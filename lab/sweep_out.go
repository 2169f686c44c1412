package lab

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/internal/input"
	"github.com/evalsched/lab/results"
)

// SweepManifest is DIR/sweep.json: which sweep a directory holds (its
// points, seeds and, for a shard, which shard).
type SweepManifest struct {
	Schema    string   `json:"schema"`
	Hash      string   `json:"sweep_hash"`
	ParamKeys []string `json:"param_keys"`
	Points    []string `json:"points"` // IDs, in order
	Names     []string `json:"names"`
	Seeds     []uint64 `json:"seeds"`
	Shard     string   `json:"shard,omitempty"`
}

func (s *Sweep) manifest(sh Shard) SweepManifest {
	m := SweepManifest{Schema: "evalsched-sweep", Hash: s.Hash, Seeds: s.Seeds, ParamKeys: s.ParamKeys}
	for _, p := range s.Points {
		m.Points = append(m.Points, p.ID)
		m.Names = append(m.Names, p.Name)
	}
	if sh.N > 1 {
		m.Shard = sh.String()
	}
	return m
}

// Prepare makes the staging directory of a sweep (or shard) ready: a
// fresh one gets the manifest and the points already done in dir (the
// sweep's last complete outputs, if of this sweep); a resumed one must
// hold this sweep. Every point file found is read whole first: one of
// another sweep, cut, or holding a value that does not parse is refused,
// not trusted. It returns the indices of the points still to run.
func (s *Sweep) Prepare(stage *results.StagedDir, fresh bool, dir string, sh Shard) ([]int, error) {
	want := s.manifest(sh)
	work := stage.Dir
	if !fresh && !results.FileExists(filepath.Join(work, "sweep.json")) {
		// Stopped before its manifest was written: it holds no point of
		// any sweep (a point is written only after the manifest), so it
		// starts afresh.
		if points, _ := filepath.Glob(filepath.Join(work, "points", "*.csv")); len(points) == 0 {
			fresh = true
			if err := os.WriteFile(filepath.Join(work, results.OutputMarker), nil, 0o644); err != nil {
				return nil, err
			}
		}
	}
	if !fresh {
		if err := sameSweep(work, dir, want); err != nil {
			return nil, err
		}
	}
	if fresh {
		if _, err := os.Stat(filepath.Join(dir, "sweep.json")); err == nil {
			if err := sameSweep(dir, dir, want); err != nil {
				return nil, err
			}
		}
		if err := os.MkdirAll(filepath.Join(work, "points"), 0o755); err != nil {
			return nil, err
		}
		for i, p := range s.Points {
			src := pointFile(dir, p.ID)
			if !sh.Owns(i) || !results.FileExists(src) {
				continue
			}
			if _, err := s.readPoint(src, i, want.Hash); err != nil {
				return nil, err
			}
			if err := linkOrCopy(src, pointFile(work, p.ID)); err != nil {
				return nil, err
			}
		}
		if err := results.WriteJSON(filepath.Join(work, "sweep.json"), want); err != nil {
			return nil, err
		}
	}
	var todo []int
	for i, p := range s.Points {
		if !sh.Owns(i) {
			continue
		}
		if !results.FileExists(pointFile(work, p.ID)) {
			todo = append(todo, i)
			continue
		}
		if _, err := s.readPoint(pointFile(work, p.ID), i, want.Hash); err != nil {
			return nil, err
		}
	}
	return todo, nil
}

// linkOrCopy puts src at dst: a hard link where the file system allows,
// else a copy.
func linkOrCopy(src, dst string) error {
	if os.Link(src, dst) == nil {
		return nil
	}
	data, err := input.ReadFile(src)
	if err != nil {
		return err
	}
	return results.WriteFileAtomic(dst, data)
}

// sameSweep refuses a directory whose manifest is not want's sweep and
// shard (shown names the directory the user gave).
func sameSweep(d, shown string, want SweepManifest) error {
	var have SweepManifest
	err := results.ReadJSONFile(filepath.Join(d, "sweep.json"), &have)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s holds an unfinished sweep without its sweep.json: remove %s, or use another --out", shown, d)
	}
	if err != nil {
		return err
	}
	if have.Schema != want.Schema || have.Hash != want.Hash || have.Shard != want.Shard {
		return fmt.Errorf("%s holds another sweep (or shard) (sweep %s, this is %s): use another --out", shown, have.Hash, want.Hash)
	}
	return nil
}

func pointFile(dir, id string) string { return filepath.Join(dir, "points", id+".csv") }

// pointHeader is the first line of a point file: the sweep and point it
// belongs to, so a point file copied from another sweep is refused.
func pointHeader(hash, id string) string { return "# sweep " + hash + " point " + id + "\n" }

// WritePoint writes one finished point's tidy rows (perSeed in seed order)
// to DIR/points/ID.csv, atomically: a point with a file is done.
func (s *Sweep) WritePoint(dir string, i int, perSeed [][]MetricValue) error {
	p := s.Points[i]
	var buf bytes.Buffer
	buf.WriteString(pointHeader(s.Hash, p.ID))
	w := csv.NewWriter(&buf)
	for k, vs := range perSeed {
		for _, v := range vs {
			if s.Keep(v.MetricKey) {
				w.Write(s.row(p, strconv.FormatUint(s.Seeds[k], 10), v.Lane, v.Metric, FormatFloat(v.Value)))
			}
		}
	}
	w.Flush()
	return results.WriteFileAtomic(pointFile(dir, p.ID), buf.Bytes())
}

// readPoint reads and checks the point file of point i (see checkPoint),
// returning its rows' bytes (without the header line).
func (s *Sweep) readPoint(path string, i int, hash string) ([]byte, error) {
	m := s.manifest(Whole)
	m.Hash = hash
	return checkPoint(path, m, i)
}

// MaxPointBytes bounds a point file.
const MaxPointBytes = 64 << 20

// checkPoint reads the point file of point i of the sweep m: its header
// names this sweep and point; it ends in a newline (a cut file does not);
// every row has the sweep's columns, this point's id and name, a seed of
// the sweep in order, and a finite value; every seed of the sweep has rows.
// It returns the rows' bytes.
func checkPoint(path string, m SweepManifest, i int) ([]byte, error) {
	f, err := input.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxPointBytes+1))
	if err != nil {
		return nil, err
	}
	bad := func(line int, at, format string, args ...any) error {
		return &field.Error{File: path, Line: line, Path: at, Msg: fmt.Sprintf(format, args...)}
	}
	if len(data) > MaxPointBytes {
		return nil, bad(0, "", "more than %d bytes: not a point file", MaxPointBytes)
	}
	id := m.Points[i]
	head := pointHeader(m.Hash, id)
	if !bytes.HasPrefix(data, []byte(head)) {
		first, _, _ := bytes.Cut(data, []byte("\n"))
		return nil, bad(1, "", "not a point file of this sweep: want %q, have %q (a file of another sweep, or not one sim wrote): remove it to rerun the point", strings.TrimSpace(head), first)
	}
	body := data[len(head):]
	if len(body) == 0 || body[len(body)-1] != '\n' {
		return nil, bad(0, "", "cut short (no newline at its end): remove it to rerun the point")
	}
	r := csv.NewReader(bytes.NewReader(body))
	r.FieldsPerRecord = -1
	width := 2 + len(m.ParamKeys) + 4
	seedAt, last := 0, -1
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, bad(line, "", "%v", err)
		}
		if len(rec) != width {
			return nil, bad(line, "", "%d fields, want %d", len(rec), width)
		}
		if rec[0] != id || (i < len(m.Names) && rec[1] != m.Names[i]) {
			return nil, bad(line, "point", "row of point %s (%s), this file is point %s", rec[0], rec[1], id)
		}
		seed, err := strconv.ParseUint(rec[width-4], 10, 64)
		k := slices.Index(m.Seeds, seed)
		if err != nil || k < 0 {
			return nil, bad(line, "seed", "%q is not a seed of this sweep (%v)", rec[width-4], m.Seeds)
		}
		if k < last {
			return nil, bad(line, "seed", "seed %d after seed %d: rows are in seed order", seed, m.Seeds[last])
		}
		if k > last {
			if k != last+1 {
				return nil, bad(line, "seed", "seed %d follows seed %s: a seed's rows are missing", seed, seedName(m.Seeds, last))
			}
			last, seedAt = k, seedAt+1
		}
		if rec[width-3] == "" || !slices.Contains(MetricNames, rec[width-2]) {
			return nil, bad(line, "metric", "lane %q, metric %q: not a figure of the lab", rec[width-3], rec[width-2])
		}
		v, err := strconv.ParseFloat(rec[width-1], 64)
		if err != nil || !finite(v) {
			return nil, bad(line, "value", "%q is not a finite number", rec[width-1])
		}
	}
	if seedAt != len(m.Seeds) {
		return nil, bad(0, "", "rows for %d of the sweep's %d seeds: remove it to rerun the point", seedAt, len(m.Seeds))
	}
	return body, nil
}

func seedName(seeds []uint64, k int) string {
	if k < 0 {
		return "the start"
	}
	return strconv.FormatUint(seeds[k], 10)
}

func (s *Sweep) row(p PointSpec, tail ...string) []string {
	row := []string{p.ID, p.Name}
	for _, k := range s.ParamKeys {
		v := ""
		for _, q := range p.Params {
			if q.Key == k {
				v = q.Value.Value
			}
		}
		row = append(row, v)
	}
	return append(row, tail...)
}

// Assemble writes the sweep's CSVs into dir from its point files.
func (s *Sweep) Assemble(dir string) error { return assemble(dir, s.manifest(Whole), nil) }

// assemble writes DIR/sweep.csv (every point's rows, in point order) and
// DIR/summary.csv (per point, lane and metric: seeds, mean, standard error
// and 95% interval, see Aggregate) from the point files of dir, else of
// the first of from holding it, each checked whole (checkPoint). Every
// point must be done.
func assemble(dir string, m SweepManifest, from []string) error {
	params := len(m.ParamKeys)
	head := append(append([]string{"point", "name"}, m.ParamKeys...), "seed", "lane", "metric", "value")
	var long, sum bytes.Buffer
	lw, sw := csv.NewWriter(&long), csv.NewWriter(&sum)
	lw.Write(head)
	sw.Write(append(append([]string{"point", "name"}, m.ParamKeys...), "lane", "metric", "seeds", "mean", "se", "ci95_low", "ci95_high"))
	lw.Flush()
	for i, id := range m.Points {
		data, err := readDonePoint(m, i, append([]string{dir}, from...))
		if err != nil {
			return err
		}
		long.Write(data)
		rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil {
			return fmt.Errorf("point %s: %w", id, err)
		}
		for _, a := range aggregateRows(rows, len(head)) {
			row := append(append(slices.Clone(rows[0][:2+params]), a.Lane, a.Metric), summaryCells(a)...)
			sw.Write(row)
		}
	}
	sw.Flush()
	if err := results.WriteFileAtomic(filepath.Join(dir, "sweep.csv"), long.Bytes()); err != nil {
		return err
	}
	return results.WriteFileAtomic(filepath.Join(dir, "summary.csv"), sum.Bytes())
}

// summaryCells are summary.csv's seeds, mean, se, ci95_low and ci95_high
// of a figure; with one seed se and the bounds are empty, not 0 and the mean
// (docs/reference/metrics.md: one seed gives a mean, not an interval).
func summaryCells(a MetricAgg) []string {
	if !a.Interval {
		return []string{strconv.Itoa(len(a.Values)), FormatFloat(a.Mean), "", "", ""}
	}
	return []string{strconv.Itoa(len(a.Values)), FormatFloat(a.Mean), FormatFloat(a.SE), FormatFloat(a.Low), FormatFloat(a.High)}
}

// anyPointFile reports whether any of dirs holds point id's file.
func anyPointFile(id string, dirs []string) bool {
	for _, d := range dirs {
		if results.FileExists(pointFile(d, id)) {
			return true
		}
	}
	return false
}

// readDonePoint is point i's checked rows from the first of dirs holding
// its file.
func readDonePoint(m SweepManifest, i int, dirs []string) ([]byte, error) {
	id := m.Points[i]
	for _, d := range dirs {
		if p := pointFile(d, id); results.FileExists(p) {
			return checkPoint(p, m, i)
		}
	}
	return nil, fmt.Errorf("point %s is not done in %v: run (or resume) the shard that owns it", id, dirs)
}

// aggregateRows regroups a point's tidy rows by seed (column width−4) and
// aggregates them.
func aggregateRows(rows [][]string, width int) []MetricAgg {
	var perSeed [][]MetricValue
	last := ""
	for _, r := range rows {
		if len(r) != width {
			continue
		}
		seed, lane, metric := r[width-4], r[width-3], r[width-2]
		v, _ := strconv.ParseFloat(r[width-1], 64)
		if seed != last || len(perSeed) == 0 {
			perSeed = append(perSeed, nil)
			last = seed
		}
		perSeed[len(perSeed)-1] = append(perSeed[len(perSeed)-1], MetricValue{MetricKey{lane, metric}, v})
	}
	return Aggregate(perSeed)
}

// MergeSweep gathers shard directories (or any directories of one sweep)
// into dir: their point files, the sweep's manifest (without a shard) and
// the assembled CSVs, the same bytes an unsharded run writes. The shards
// must hold one sweep (the same hash: file and every point's scenario) and
// every point whole; everything is checked and written into a staging
// directory before dir is replaced, and dir may not be one of the shards.
func MergeSweep(dir string, shards []string) error {
	if len(shards) == 0 {
		return errors.New("merge: name the shard directories")
	}
	if err := results.CheckOutDir(dir); err != nil { // before the shards are read
		return err
	}
	if err := checkMergeDirs(dir, shards); err != nil {
		return err
	}
	m, err := ReadSweepManifest(shards[0])
	if err != nil {
		return err
	}
	for _, d := range shards[1:] {
		o, err := ReadSweepManifest(d)
		if err != nil {
			return err
		}
		if o.Hash != m.Hash || !slices.Equal(o.Points, m.Points) || !slices.Equal(o.Seeds, m.Seeds) || !slices.Equal(o.ParamKeys, m.ParamKeys) {
			return fmt.Errorf("merge: %s and %s hold different sweeps (sweep %s and %s)", shards[0], d, m.Hash, o.Hash)
		}
	}
	split, _ := ParseShard(m.Shard)
	m.Shard = ""
	// Every point is read whole before anything is written; a missing one
	// names the shard that owns it.
	for i, id := range m.Points {
		if _, err := readDonePoint(m, i, shards); err != nil {
			if !anyPointFile(id, shards) && split.N > 1 {
				return fmt.Errorf("merge: point %s is not done in any of %v: shard %d/%d did not run or did not finish (run or resume it: sim sweep --shard %d/%d)",
					id, shards, i%split.N, split.N, i%split.N, split.N)
			}
			return err
		}
	}
	stage, err := results.StageDir(dir)
	if err != nil {
		return err
	}
	defer stage.Abort() // after Commit, a no-op
	if err := os.MkdirAll(filepath.Join(stage.Dir, "points"), 0o755); err != nil {
		return err
	}
	for _, id := range m.Points {
		var src string
		for _, d := range shards {
			if p := pointFile(d, id); results.FileExists(p) {
				src = p
				break
			}
		}
		data, err := input.ReadFile(src)
		if err != nil {
			return err
		}
		if err := results.WriteFileAtomic(pointFile(stage.Dir, id), data); err != nil {
			return err
		}
	}
	if err := results.WriteJSON(filepath.Join(stage.Dir, "sweep.json"), m); err != nil {
		return err
	}
	if err := assemble(stage.Dir, m, nil); err != nil {
		return err
	}
	return stage.Commit()
}

// checkMergeDirs refuses shards that are not directories, one given
// twice, and an --out that is one of them (or holds one, or lies inside
// one): replacing it would destroy an input.
func checkMergeDirs(dir string, shards []string) error {
	out, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	seen := map[string]string{}
	for _, d := range shards {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return fmt.Errorf("merge: %s is not a directory: give the shard directories of one sweep or one compare --seeds", d)
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return err
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		if prev, ok := seen[abs]; ok {
			return fmt.Errorf("merge: %s and %s are the same directory", prev, d)
		}
		seen[abs] = d
		o := out
		if real, err := filepath.EvalSymlinks(out); err == nil {
			o = real
		}
		if within(abs, o) || within(o, abs) {
			return fmt.Errorf("merge: --out %s and the shard %s overlap: merging would replace an input; give another --out", dir, d)
		}
	}
	return nil
}

// within reports whether p is dir or inside it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && (rel == "." || !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && rel != "..")
}

// ReadSweepManifest reads DIR/sweep.json (a directory without one is not
// a sweep's).
func ReadSweepManifest(dir string) (SweepManifest, error) {
	var m SweepManifest
	err := results.ReadJSONFile(filepath.Join(dir, "sweep.json"), &m)
	if errors.Is(err, fs.ErrNotExist) {
		err = fmt.Errorf("merge: %s holds no sweep.json: not a shard of sim sweep (nor of compare --seeds, which holds summary.json)", dir)
	}
	return m, err
}
