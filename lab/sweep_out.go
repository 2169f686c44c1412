package lab

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

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

// PrepareDir makes dir ready for the sweep (or shard): a new directory,
// or one holding the same sweep (a resumed run). It returns the indices
// of the points still to run.
func (s *Sweep) PrepareDir(dir string, sh Shard) ([]int, error) {
	want := s.manifest(sh)
	if err := os.MkdirAll(filepath.Join(dir, "points"), 0o755); err != nil {
		return nil, err
	}
	var have SweepManifest
	data, err := os.ReadFile(filepath.Join(dir, "sweep.json"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := results.WriteJSON(filepath.Join(dir, "sweep.json"), want); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	default:
		if err := json.Unmarshal(data, &have); err != nil || have.Hash != want.Hash || have.Shard != want.Shard {
			return nil, fmt.Errorf("%s holds another sweep (or shard): use another --out", dir)
		}
	}
	var todo []int
	for i, p := range s.Points {
		if sh.Owns(i) && !results.FileExists(pointFile(dir, p.ID)) {
			todo = append(todo, i)
		}
	}
	return todo, nil
}

func pointFile(dir, id string) string { return filepath.Join(dir, "points", id+".csv") }

// WritePoint writes one finished point's tidy rows (perSeed in seed order)
// to DIR/points/ID.csv, atomically: a point with a file is done.
func (s *Sweep) WritePoint(dir string, i int, perSeed [][]MetricValue) error {
	p := s.Points[i]
	var buf bytes.Buffer
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
// the first of from holding it. Every point must be done.
func assemble(dir string, m SweepManifest, from []string) error {
	params := len(m.ParamKeys)
	head := append(append([]string{"point", "name"}, m.ParamKeys...), "seed", "lane", "metric", "value")
	var long, sum bytes.Buffer
	lw, sw := csv.NewWriter(&long), csv.NewWriter(&sum)
	lw.Write(head)
	sw.Write(append(append([]string{"point", "name"}, m.ParamKeys...), "lane", "metric", "seeds", "mean", "se", "ci95_low", "ci95_high"))
	lw.Flush()
	for _, id := range m.Points {
		data, err := readPoint(id, append([]string{dir}, from...))
		if err != nil {
			return err
		}
		long.Write(data)
		rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil {
			return fmt.Errorf("point %s: %w", id, err)
		}
		for _, a := range aggregateRows(rows, len(head)) {
			row := append(slices.Clone(rows[0][:2+params]), a.Lane, a.Metric, strconv.Itoa(len(a.Values)),
				FormatFloat(a.Mean), FormatFloat(a.SE), FormatFloat(a.Low), FormatFloat(a.High))
			sw.Write(row)
		}
	}
	sw.Flush()
	if err := results.WriteFileAtomic(filepath.Join(dir, "sweep.csv"), long.Bytes()); err != nil {
		return err
	}
	return results.WriteFileAtomic(filepath.Join(dir, "summary.csv"), sum.Bytes())
}

func readPoint(id string, dirs []string) ([]byte, error) {
	for _, d := range dirs {
		if data, err := os.ReadFile(pointFile(d, id)); err == nil {
			return data, nil
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
// the assembled CSVs, the same bytes an unsharded run writes.
func MergeSweep(dir string, shards []string) error {
	if len(shards) == 0 {
		return errors.New("merge: name the shard directories")
	}
	for _, d := range shards {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return fmt.Errorf("merge: %s is not a directory: give the shard directories of one sweep or one compare --seeds", d)
		}
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
		if o.Hash != m.Hash || !slices.Equal(o.Points, m.Points) || !slices.Equal(o.Seeds, m.Seeds) {
			return fmt.Errorf("%s and %s hold different sweeps", shards[0], d)
		}
	}
	split, _ := ParseShard(m.Shard)
	m.Shard = ""
	if err := os.MkdirAll(filepath.Join(dir, "points"), 0o755); err != nil {
		return err
	}
	for i, id := range m.Points {
		data, err := readPoint(id, shards)
		if err != nil {
			if split.N > 1 {
				return fmt.Errorf("merge: point %s is not done in any of %v: shard %d/%d did not run or did not finish (run or resume it: sim sweep --shard %d/%d)",
					id, shards, i%split.N, split.N, i%split.N, split.N)
			}
			return err
		}
		if err := results.WriteFileAtomic(pointFile(dir, id), data); err != nil {
			return err
		}
	}
	if err := results.WriteJSON(filepath.Join(dir, "sweep.json"), m); err != nil {
		return err
	}
	return assemble(dir, m, nil)
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
