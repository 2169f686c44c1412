package agentlog

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
)

// sorter is an external sort of (key, value) records by key, stable
// (equal keys come out in the order they were added): records are held
// in memory up to a byte budget, then sorted and written to a temporary
// file (a run); reading merges the runs, at most mergeFanIn at a time
// (more are first merged into fewer), so memory is the budget plus a
// read buffer per merged run, whatever the input's size.
type sorter struct {
	dir    string // for the runs; "" is the system's
	budget int    // bytes of records held before a run is written
	buf    []byte // the held records: uvarint key length, uvarint value length, key, value
	offs   []int  // each held record's offset in buf
	runs   []string
	seq    uint64        // records added: the stable tie-break, appended to keys
	w      *bufio.Writer // the runs' writer, reused
}

// writer is the sorter's run writer, reset onto f.
func (s *sorter) writer(f *os.File) *bufio.Writer {
	if s.w == nil {
		s.w = bufio.NewWriterSize(f, min(64<<10, max(4<<10, s.budget)))
	}
	s.w.Reset(f)
	return s.w
}

// mergeFanIn bounds the runs read at once, runBuffer the read buffer of each.
const (
	mergeFanIn = 64
	runBuffer  = 16 << 10
)

// defaultSortBudget is the bytes of records a sorter holds in memory.
const defaultSortBudget = 32 << 20

func newSorter(dir string, budget int) *sorter {
	if budget <= 0 {
		budget = defaultSortBudget
	}
	return &sorter{dir: dir, budget: budget}
}

// add adds a record; key and val are copied.
func (s *sorter) add(key, val []byte) error {
	var seq [8]byte
	binary.BigEndian.PutUint64(seq[:], s.seq)
	s.seq++
	// Grown by hand so that it never holds much more than the budget
	// (append's doubling would reach twice it).
	if need := len(s.buf) + len(key) + len(val) + 28; need > cap(s.buf) {
		nb := make([]byte, len(s.buf), max(need, min(max(2*cap(s.buf), 64<<10), s.budget)))
		copy(nb, s.buf)
		s.buf = nb
	}
	s.offs = append(s.offs, len(s.buf))
	s.buf = binary.AppendUvarint(s.buf, uint64(len(key)+8))
	s.buf = binary.AppendUvarint(s.buf, uint64(len(val)))
	s.buf = append(s.buf, key...)
	s.buf = append(s.buf, seq[:]...)
	s.buf = append(s.buf, val...)
	if len(s.buf)+8*len(s.offs) >= s.budget {
		return s.spill()
	}
	return nil
}

// record splits the held record at offset off.
func (s *sorter) record(off int) (key, val []byte) {
	b := s.buf[off:]
	kl, n := binary.Uvarint(b)
	b = b[n:]
	vl, n := binary.Uvarint(b)
	b = b[n:]
	return b[:kl], b[kl : kl+vl]
}

func (s *sorter) sortHeld() {
	slices.SortFunc(s.offs, func(a, b int) int {
		ka, _ := s.record(a)
		kb, _ := s.record(b)
		return compareKeys(ka, kb)
	})
}

// compareKeys orders stored keys (each ending in its 8-byte sequence
// number) by key, then sequence: never equal.
func compareKeys(a, b []byte) int {
	if c := bytes.Compare(a[:len(a)-8], b[:len(b)-8]); c != 0 {
		return c
	}
	return bytes.Compare(a[len(a)-8:], b[len(b)-8:])
}

// spill writes the held records, sorted, as a run.
func (s *sorter) spill() error {
	if len(s.offs) == 0 {
		return nil
	}
	s.sortHeld()
	f, err := createRun(s.dir)
	if err != nil {
		return err
	}
	s.runs = append(s.runs, f.Name())
	w := s.writer(f)
	for _, off := range s.offs {
		k, v := s.record(off)
		if err := writeRecord(w, k, v); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	s.buf, s.offs = s.buf[:0], s.offs[:0]
	return f.Close()
}

func writeRecord(w *bufio.Writer, k, v []byte) error {
	var hdr [2 * binary.MaxVarintLen64]byte
	n := binary.PutUvarint(hdr[:], uint64(len(k)))
	n += binary.PutUvarint(hdr[n:], uint64(len(v)))
	w.Write(hdr[:n])
	w.Write(k)
	_, err := w.Write(v)
	return err
}

// close removes the runs.
func (s *sorter) close() {
	for _, r := range s.runs {
		removeRun(r)
	}
	s.runs = nil
	s.buf, s.offs = nil, nil
}

// each calls fn with every record in key order (the key without its
// sequence number); key and val are valid only during the call. The
// sorter is empty afterwards, its runs removed.
func (s *sorter) each(fn func(key, val []byte) error) error {
	defer s.close()
	if len(s.runs) == 0 {
		s.sortHeld()
		for _, off := range s.offs {
			k, v := s.record(off)
			if err := fn(k[:len(k)-8], v); err != nil {
				return err
			}
		}
		return nil
	}
	if err := s.spill(); err != nil {
		return err
	}
	s.buf, s.offs = nil, nil
	for len(s.runs) > mergeFanIn {
		if err := s.mergeRuns(); err != nil {
			return err
		}
	}
	m, err := openMerge(s.runs)
	if err != nil {
		return err
	}
	defer m.close()
	for {
		k, v, ok, err := m.next()
		if err != nil || !ok {
			return err
		}
		if err := fn(k[:len(k)-8], v); err != nil {
			return err
		}
	}
}

// mergeRuns merges the first mergeFanIn runs into one at the end.
func (s *sorter) mergeRuns() error {
	m, err := openMerge(s.runs[:mergeFanIn])
	if err != nil {
		return err
	}
	defer m.close()
	f, err := createRun(s.dir)
	if err != nil {
		return err
	}
	w := s.writer(f)
	for {
		k, v, ok, err := m.next()
		if err == nil && ok {
			err = writeRecord(w, k, v)
		}
		if err != nil {
			f.Close()
			removeRun(f.Name())
			return err
		}
		if !ok {
			break
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		removeRun(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	for _, r := range s.runs[:mergeFanIn] {
		removeRun(r)
	}
	s.runs = append(s.runs[mergeFanIn:], f.Name())
	return nil
}

// runReader reads one run's records in order.
type runReader struct {
	f        *os.File
	r        *bufio.Reader
	key, val []byte
}

var errBadRun = errors.New("a temporary sort file was cut short")

func (r *runReader) next() (bool, error) {
	kl, err := binary.ReadUvarint(r.r)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	vl, err := binary.ReadUvarint(r.r)
	if err != nil {
		return false, errBadRun
	}
	if kl < 8 || kl+vl > 1<<31 {
		return false, errBadRun
	}
	r.key = slices.Grow(r.key[:0], int(kl))[:kl]
	r.val = slices.Grow(r.val[:0], int(vl))[:vl]
	if _, err := io.ReadFull(r.r, r.key); err != nil {
		return false, errBadRun
	}
	if _, err := io.ReadFull(r.r, r.val); err != nil {
		return false, errBadRun
	}
	return true, nil
}

// merge is a k-way merge of runs by key (a heap of their heads).
type merge struct {
	rs   []*runReader
	h    mergeHeap
	last *runReader // the head handed out, to advance on the next call
}

type mergeHeap []*runReader

func (h mergeHeap) Len() int           { return len(h) }
func (h mergeHeap) Less(i, j int) bool { return compareKeys(h[i].key, h[j].key) < 0 }
func (h mergeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)        { *h = append(*h, x.(*runReader)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func openMerge(names []string) (*merge, error) {
	m := &merge{}
	for _, n := range names {
		f, err := os.Open(n)
		if err != nil {
			m.close()
			return nil, err
		}
		r := &runReader{f: f, r: bufio.NewReaderSize(f, runBuffer)}
		m.rs = append(m.rs, r)
		ok, err := r.next()
		if err != nil {
			m.close()
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		if ok {
			m.h = append(m.h, r)
		}
	}
	heap.Init(&m.h)
	return m, nil
}

func (m *merge) next() (key, val []byte, ok bool, err error) {
	if m.last != nil {
		ok, err := m.last.next()
		if err != nil {
			return nil, nil, false, err
		}
		if ok {
			heap.Fix(&m.h, 0)
		} else {
			heap.Pop(&m.h)
		}
		m.last = nil
	}
	if len(m.h) == 0 {
		return nil, nil, false, nil
	}
	m.last = m.h[0]
	return m.last.key, m.last.val, true, nil
}

func (m *merge) close() {
	for _, r := range m.rs {
		r.f.Close()
	}
}

// enc and dec write and read the fields of a record's value.
type enc struct{ b []byte }

func (e *enc) str(s string) { e.b = binary.AppendUvarint(e.b, uint64(len(s))); e.b = append(e.b, s...) }
func (e *enc) int(v int64)  { e.b = binary.AppendVarint(e.b, v) }

type dec struct {
	b   []byte
	bad bool
}

func (d *dec) int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) str() string {
	l, n := binary.Uvarint(d.b)
	if n <= 0 || uint64(len(d.b)-n) < l {
		d.bad = true
		return ""
	}
	s := string(d.b[n : n+int(l)])
	d.b = d.b[n+int(l):]
	return s
}

// Order-preserving key parts: bytes.Compare of the encodings orders as
// the values do.

// keyInt appends v so that a smaller v compares smaller.
func keyInt(b []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(b, uint64(v)^(1<<63))
}

// keyStr appends s so that the encodings compare as strings.Compare
// does, and a key part after it cannot change that order: 0x00 is
// escaped as 0x00 0xff and the end marked 0x00 0x01.
func keyStr(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		b = append(b, s[i])
		if s[i] == 0 {
			b = append(b, 0xff)
		}
	}
	return append(b, 0, 1)
}

// runFiles is every sort run of the process not yet removed, for
// RemoveTemporary; stopped says RemoveTemporary ran, and no run may be
// made after it.
var runFiles = struct {
	sync.Mutex
	names   map[string]bool
	stopped bool
}{names: map[string]bool{}}

// errStopped is the error of a sort asked for a run after RemoveTemporary.
var errStopped = errors.New("the import is being stopped")

func createRun(dir string) (*os.File, error) {
	runFiles.Lock()
	defer runFiles.Unlock()
	if runFiles.stopped {
		return nil, errStopped
	}
	f, err := os.CreateTemp(dir, "sim-import-*.run")
	if err == nil {
		runFiles.names[f.Name()] = true
	}
	return f, err
}

func removeRun(name string) {
	runFiles.Lock()
	defer runFiles.Unlock()
	os.Remove(name)
	delete(runFiles.names, name)
}

// RemoveTemporary removes every sort run the imports of the process have
// on disk, and makes any later sort fail: for a process about to exit on a
// signal, which would otherwise leave them in the temporary directory.
func RemoveTemporary() {
	runFiles.Lock()
	defer runFiles.Unlock()
	runFiles.stopped = true
	for name := range runFiles.names {
		os.Remove(name)
		delete(runFiles.names, name)
	}
}
