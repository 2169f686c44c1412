package results

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/evalsched/lab/internal/field"
)

// Outputs is an output directory read back: summary.json, series.csv and
// batches.csv as sim run or sim compare wrote them.
type Outputs struct {
	Dir     string
	Shown   string // the directory to name in a report, if not Dir (a staged copy)
	Summary Summary
	Series  []SeriesRecord
	// SeriesExtra names the series.csv columns beyond SeriesCSVHeader, in
	// file order; each record's Extra holds their values (NaN if unparsable).
	SeriesExtra []string
	Batches     []BatchRecord

	seriesNames, batchNames interner  // one each: the two files are read at once
	extraBlock              []float64 // backs the Extra of the rows read last
	hot                     []string  // hotLanes, once found
	hotFound                bool
}

// SeriesRecord is one row of series.csv.
type SeriesRecord struct {
	Policy   string
	Model    string
	T        float64
	Running  int32
	Limit    int32 // -1 if the policy keeps none
	Depth    int32
	Inflight int32
	Waiting  int32
	Extra    []float64
}

// BatchRecord is one row of batches.csv.
type BatchRecord struct {
	Policy string
	BatchProgressRow
}

// LoadOutputs reads an output directory. summary.json must exist; a missing
// series.csv or batches.csv reads as no rows (older outputs lack
// batches.csv). Columns are found by header name, so columns added later are
// tolerated (kept in SeriesExtra for series.csv).
func LoadOutputs(dir string) (*Outputs, error) {
	o := &Outputs{Dir: dir}
	if err := readJSONFile(filepath.Join(dir, "summary.json"), &o.Summary); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			for _, other := range []struct{ file, what string }{{"sweep.json", "a sweep's"}, {"tune.csv", "a tune's"}, {"verdict.json", "a gate's"}} {
				if fileExists(filepath.Join(dir, other.file)) {
					return nil, fmt.Errorf("%s holds %s outputs (%s), not a run's: this reads the directory of sim run or sim compare", dir, other.what, other.file)
				}
			}
		}
		return nil, err
	}
	if o.Summary.Schema != "" && o.Summary.Schema != "evalsched-summary" {
		return nil, fmt.Errorf("%s: schema %q is not evalsched-summary", filepath.Join(dir, "summary.json"), o.Summary.Schema)
	}
	if o.Summary.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("%s: schema_version %d is newer than this tool's %d", filepath.Join(dir, "summary.json"), o.Summary.SchemaVersion, SchemaVersion)
	}
	// Sized from the files' line counts first: a week's millions of rows
	// appended into doubling slices held up to three times their size.
	series, batches := filepath.Join(dir, "series.csv"), filepath.Join(dir, "batches.csv")
	// The two files are read at once, on two goroutines; an error in
	// series.csv is reported before one in batches.csv, as when read in turn.
	var batchErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		o.Batches = make([]BatchRecord, 0, countLines(batches))
		batchErr = readCSV(batches, o.addBatch)
	}()
	o.Series = make([]SeriesRecord, 0, countLines(series))
	seriesErr := readCSV(series, o.addSeries)
	wg.Wait()
	if seriesErr != nil {
		return nil, seriesErr
	}
	if batchErr != nil {
		return nil, batchErr
	}
	return o, nil
}

// countLines is the number of newlines in the file at path (0 if it cannot
// be read: the reader then reports why).
func countLines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	buf := make([]byte, 1<<16)
	for {
		k, err := f.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err != nil {
			return n
		}
	}
}

// readCSV calls row for every record after the header; a missing file is no
// rows.
func readCSV(path string, row func(col map[string]int, header, rec []string) error) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReaderSize(f, 1<<16))
	r.ReuseRecord = true
	header, err := r.Read()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	header = append([]string(nil), header...)
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := row(col, header, rec); err != nil {
			return field.In(path, line, err)
		}
	}
}

// fields reads named columns of one record; a bad value is a *field.Error
// naming its column.
type fields struct {
	col map[string]int
	rec []string
	err error
}

func (f *fields) str(name string) string {
	i, ok := f.col[name]
	if !ok {
		if f.err == nil {
			f.err = &field.Error{Msg: fmt.Sprintf("no column %q", name)}
		}
		return ""
	}
	return f.rec[i]
}

func (f *fields) num(name string) float64 {
	s := f.str(name)
	if f.err != nil {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && f.err == nil {
		f.err = field.Errorf(name, "%q is not a number", s)
	}
	return v
}

func (f *fields) i32(name string) int32 {
	s := f.str(name)
	if f.err != nil {
		return 0
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil && f.err == nil {
		f.err = field.Errorf(name, "%q is not an integer", s)
	}
	return int32(v)
}

var seriesCols = map[string]bool{"policy": true, "t_s": true, "model": true, "running": true, "limit": true,
	"gateway_depth": true, "provider_inflight": true, "waiting": true}

func (o *Outputs) addSeries(col map[string]int, header, rec []string) error {
	if o.SeriesExtra == nil {
		o.SeriesExtra = []string{}
		for _, h := range header {
			if !seriesCols[h] {
				o.SeriesExtra = append(o.SeriesExtra, h)
			}
		}
	}
	f := fields{col: col, rec: rec}
	r := SeriesRecord{Policy: f.str("policy"), Model: f.str("model"), T: f.num("t_s"), Running: f.i32("running"),
		Limit: f.i32("limit"), Depth: f.i32("gateway_depth"), Inflight: f.i32("provider_inflight"), Waiting: f.i32("waiting")}
	if f.err != nil {
		return f.err
	}
	r.Policy, r.Model = o.seriesNames.of(r.Policy), o.seriesNames.of(r.Model)
	if n := len(o.SeriesExtra); n > 0 {
		// The rows' extra values share large blocks: one allocation per row
		// was a third of what reading a week's series.csv allocated.
		if len(o.extraBlock)+n > cap(o.extraBlock) {
			o.extraBlock = make([]float64, 0, max(n, 1<<16))
		}
		o.extraBlock = o.extraBlock[:len(o.extraBlock)+n]
		r.Extra = o.extraBlock[len(o.extraBlock)-n : len(o.extraBlock) : len(o.extraBlock)]
		for i, h := range o.SeriesExtra {
			v, err := strconv.ParseFloat(rec[col[h]], 64)
			if err != nil {
				v = math.NaN()
			}
			r.Extra[i] = v
		}
	}
	o.Series = append(o.Series, r)
	return nil
}

func (o *Outputs) addBatch(col map[string]int, _, rec []string) error {
	f := fields{col: col, rec: rec}
	r := BatchRecord{Policy: f.str("policy"), BatchProgressRow: BatchProgressRow{T: f.num("t_s"), Batch: f.str("batch"),
		Model: f.str("model"), Class: f.str("class"), Jobs: f.i32("jobs"), Started: f.i32("started"), Done: f.i32("done")}}
	if f.err != nil {
		return f.err
	}
	n := &o.batchNames
	r.Policy, r.Batch, r.Model, r.Class = n.of(r.Policy), n.of(r.Batch), n.of(r.Model), n.of(r.Class)
	o.Batches = append(o.Batches, r)
	return nil
}

// interner hands out one shared copy of each string: series and batch
// files repeat a few hundred names thousands of times.
type interner map[string]string

// of returns the shared copy of s.
func (n *interner) of(s string) string {
	if *n == nil {
		*n = map[string]string{}
	}
	if v, ok := (*n)[s]; ok {
		return v
	}
	(*n)[s] = s
	return s
}

func (o *Outputs) shownDir() string {
	if o.Shown != "" {
		return o.Shown
	}
	return o.Dir
}
