package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/internal/input"
	"github.com/evalsched/lab/internal/textenc"
)

// ReadJSONFile decodes the JSON file at path into v; a decoding error names
// the file.
func ReadJSONFile(path string, v any) error {
	f, err := input.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return &field.Error{File: path, Msg: "a directory, not a JSON file"}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxJSONBytes+1))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > MaxJSONBytes {
		return &field.Error{File: path, Msg: fmt.Sprintf("more than %d bytes: not a file sim wrote", MaxJSONBytes)}
	}
	if p := textenc.Problem(data[:min(len(data), 512)], false); p != "" {
		return &field.Error{File: path, Msg: p}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return &field.Error{File: path, Msg: "empty (cut short, or not written by sim)"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return jsonError(path, data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		off := dec.InputOffset()
		return &field.Error{File: path, Line: lineAt(data, off), Msg: "more after the JSON value: one value per file"}
	}
	return nil
}

// MaxJSONBytes bounds a JSON file the lab reads back (a summary, a
// baseline, a shard's record, a manifest), applied while reading.
const MaxJSONBytes = 1 << 30

// jsonError locates a JSON decoding error at its line.
func jsonError(path string, data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &field.Error{File: path, Line: lineAt(data, int64(len(data))), Msg: "cut short (the JSON ends before its value does): not a complete file"}
	case errors.As(err, &se):
		return &field.Error{File: path, Line: lineAt(data, se.Offset), Msg: se.Error()}
	case errors.As(err, &te):
		return &field.Error{File: path, Line: lineAt(data, te.Offset), Path: te.Field, Msg: fmt.Sprintf("want %s, got JSON %s", te.Type, te.Value)}
	}
	return fmt.Errorf("%s: %w", path, err)
}

// lineAt is the 1-based line of byte offset off.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// WriteJSON writes v as indented JSON to path atomically (a temporary file
// renamed into place), so a failed run never leaves half a file.
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(data, '\n'))
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory.
func WriteFileAtomic(path string, data []byte) error {
	return WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteAtomic streams write's output (buffered) into a temporary file in
// path's directory and renames it into place only if everything succeeded,
// so a failure leaves neither half a file nor the temporary one. A path
// that exists and is not a regular file (a pipe, a terminal, /dev/stdout)
// is written in place instead: renaming over it would replace the device
// with a file.
func WriteAtomic(path string, write func(w io.Writer) error) (err error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return fmt.Errorf("%s is a directory, not a file", path)
		}
		return writeInPlace(path, write)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return CreateError(path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = writeBuffered(f, write); err != nil {
		return err
	}
	// CreateTemp makes the file private; outputs are ordinary files.
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// CreateError is the error of an output file that cannot be created in
// its directory: it names the path and the directory that is missing, is
// not one or refuses the file, not the temporary file the error was met
// on (".x.jsonl.tmp3052853610").
func CreateError(path string, err error) error {
	dir := filepath.Dir(path)
	fi, serr := os.Stat(dir)
	switch {
	case errors.Is(serr, fs.ErrNotExist):
		return fmt.Errorf("%s: the directory %s does not exist (create it first)", path, dir)
	case serr == nil && !fi.IsDir():
		return fmt.Errorf("%s: %s is not a directory", path, dir)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: cannot create a file in the directory %s: %v", path, dir, err)
}

// writeInPlace streams write's output (buffered) into an existing
// non-regular file, reporting a failed write (a full device, a closed pipe).
func writeInPlace(path string, write func(w io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = writeBuffered(f, write)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// writeBuffered streams write's output into f through a 1 MiB buffer.
func writeBuffered(f *os.File, write func(w io.Writer) error) error {
	w := bufio.NewWriterSize(f, 1<<20)
	if err := write(w); err != nil {
		return err
	}
	return w.Flush()
}

// IsRegularOrMissing reports whether path names a regular file or nothing:
// where WriteAtomic writes through a temporary file.
func IsRegularOrMissing(path string) bool {
	fi, err := os.Stat(path)
	return err != nil || fi.Mode().IsRegular()
}
