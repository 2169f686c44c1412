package results

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/evalsched/lab/internal/field"
)

// RowFile is one row file of an output folder as sim wrote it: its rows
// after the header line and the sha256 of its bytes, counted and hashed
// while the file is streamed out. A file cut at a line boundary, or
// holding another seed's rows spliced in time order (rows carry no seed),
// passes every check of its rows; it does not pass these.
type RowFile struct {
	Name   string `json:"name"`
	Rows   int64  `json:"rows"`
	SHA256 string `json:"sha256"`
}

// RowFileNames are the row files summary.json records, in its order.
var RowFileNames = []string{"series.csv", "batches.csv"}

// rowFileOf is the record of a file whose rows were counted and whose
// bytes were hashed into sum.
func rowFileOf(name string, rows int64, sum []byte) RowFile {
	return RowFile{Name: name, Rows: rows, SHA256: hex.EncodeToString(sum)}
}

// checkRowFile compares a file as read (rows, the sha256 of its bytes)
// with its record in summary.json: the count first, since it says more
// than a digest does.
func checkRowFile(path string, want RowFile, rows int64, sum []byte) error {
	if rows != want.Rows {
		return &field.Error{File: path, Msg: fmt.Sprintf("rows: want %d (as summary.json records), have %d: the file was cut, or rows were added, after sim wrote it", want.Rows, rows)}
	}
	if got := hex.EncodeToString(sum); got != want.SHA256 {
		return &field.Error{File: path, Msg: fmt.Sprintf("digest mismatch: sha256 %s, summary.json records %s: the file was changed after sim wrote it", got, want.SHA256)}
	}
	return nil
}

// checkFiles refuses a files list that does not record each row file
// once, with a count and a sha256.
func checkFiles(files []RowFile, bad func(at, format string, args ...any) error) (map[string]RowFile, error) {
	byName := map[string]RowFile{}
	for i, f := range files {
		at := fmt.Sprintf("files[%d]", i)
		switch {
		case !slices.Contains(RowFileNames, f.Name):
			return nil, bad(at+".name", "%q is not a row file sim writes (%s)", f.Name, strings.Join(RowFileNames, ", "))
		case byName[f.Name] != RowFile{}:
			return nil, bad(at+".name", "%q given twice", f.Name)
		case f.Rows < 0:
			return nil, bad(at+".rows", "%d: a count is >= 0", f.Rows)
		}
		if b, err := hex.DecodeString(f.SHA256); err != nil || len(b) != sha256.Size {
			return nil, bad(at+".sha256", "%q is not a sha256 (64 hex digits)", f.SHA256)
		}
		byName[f.Name] = f
	}
	for _, name := range RowFileNames {
		if _, ok := byName[name]; !ok {
			return nil, bad("files", "no record of %s: sim records every row file it writes", name)
		}
	}
	return byName, nil
}
