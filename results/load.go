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
	"slices"
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

	seriesNames, batchNames interner // one each: the two files are read at once
	// Each file's columns, found in its header at its first row.
	seriesCols, seriesExtraCols, batchCols []column
	extraBlock                             []float64 // backs the Extra of the rows read last
}

// DropRows lets go of the series and batch rows (and the block backing
// their extra columns), for a reader that has taken what it needs.
func (o *Outputs) DropRows() { o.Series, o.Batches, o.extraBlock = nil, nil, nil }

// SeriesRecord is one row of series.csv.
type SeriesRecord struct {
	Policy   string
	Model    string
	T        float64
	Running  int32
	Limit    int32 // NoLimit if the policy keeps none
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
	if err := ReadJSONFile(filepath.Join(dir, "summary.json"), &o.Summary); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			for _, other := range []struct{ file, what string }{{"sweep.json", "a sweep's"}, {"tune.csv", "a tune's"}, {"verdict.json", "a gate's"}} {
				if FileExists(filepath.Join(dir, other.file)) {
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

// fields reads columns of one record; a bad value is a *field.Error
// naming its column.
type fields struct {
	rec []string
	err error
}

// column is a named column and its index in a file's header (-1: the file
// has none), looked up once per file, not per row.
type column struct {
	i    int
	name string
}

// columnsOf finds names in a file's header.
func columnsOf(col map[string]int, names ...string) []column {
	cs := make([]column, len(names))
	for k, name := range names {
		i, ok := col[name]
		if !ok {
			i = -1
		}
		cs[k] = column{i, name}
	}
	return cs
}

func (f *fields) str(c column) string {
	if c.i < 0 {
		if f.err == nil {
			f.err = &field.Error{Msg: fmt.Sprintf("no column %q", c.name)}
		}
		return ""
	}
	return f.rec[c.i]
}

func (f *fields) num(c column) float64 {
	s := f.str(c)
	if f.err != nil {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && f.err == nil {
		f.err = field.Errorf(c.name, "%q is not a number", s)
	}
	return v
}

func (f *fields) i32(c column) int32 {
	s := f.str(c)
	if f.err != nil {
		return 0
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil && f.err == nil {
		f.err = field.Errorf(c.name, "%q is not an integer", s)
	}
	return int32(v)
}

// seriesColumns are series.csv's columns a SeriesRecord holds, in the
// order addSeries reads them; the file's others are its Extra.
var seriesColumns = []string{"policy", "model", "t_s", "running", "limit", "gateway_depth", "provider_inflight", "waiting"}

func (o *Outputs) addSeries(col map[string]int, header, rec []string) error {
	if o.seriesCols == nil {
		o.seriesCols = columnsOf(col, seriesColumns...)
		o.SeriesExtra = []string{}
		for _, h := range header {
			if !slices.Contains(seriesColumns, h) {
				o.SeriesExtra = append(o.SeriesExtra, h)
			}
		}
		o.seriesExtraCols = columnsOf(col, o.SeriesExtra...)
	}
	c := o.seriesCols
	f := fields{rec: rec}
	r := SeriesRecord{Policy: f.str(c[0]), Model: f.str(c[1]), T: f.num(c[2]), Running: f.i32(c[3]),
		Limit: f.i32(c[4]), Depth: f.i32(c[5]), Inflight: f.i32(c[6]), Waiting: f.i32(c[7])}
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
		for i, c := range o.seriesExtraCols { // from the header: each is there
			v, err := strconv.ParseFloat(rec[c.i], 64)
			if err != nil {
				v = math.NaN()
			}
			r.Extra[i] = v
		}
	}
	o.Series = append(o.Series, r)
	return nil
}

// batchColumns are batches.csv's columns, in the order addBatch reads them.
var batchColumns = []string{"policy", "t_s", "batch", "model", "class", "jobs", "started", "done"}

func (o *Outputs) addBatch(col map[string]int, _, rec []string) error {
	if o.batchCols == nil {
		o.batchCols = columnsOf(col, batchColumns...)
	}
	c := o.batchCols
	f := fields{rec: rec}
	r := BatchRecord{Policy: f.str(c[0]), BatchProgressRow: BatchProgressRow{T: f.num(c[1]), Batch: f.str(c[2]),
		Model: f.str(c[3]), Class: f.str(c[4]), Jobs: f.i32(c[5]), Started: f.i32(c[6]), Done: f.i32(c[7])}}
	if f.err != nil {
		return f.err
	}
	names := &o.batchNames
	r.Policy, r.Batch, r.Model, r.Class = names.of(r.Policy), names.of(r.Batch), names.of(r.Model), names.of(r.Class)
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

func (o *Outputs) ShownDir() string {
	if o.Shown != "" {
		return o.Shown
	}
	return o.Dir
}
