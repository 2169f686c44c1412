package results

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOutputFileDirectory: an output file whose directory is missing or
// is a file is refused naming the path and that directory, by the check a
// command makes first (CheckOutFile) and by the writer (WriteAtomic), not
// with the temporary file's name ("open nodir/.x.jsonl.tmp3052853610: no
// such file or directory").
func TestOutputFileDirectory(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path         string
		check, writeAtomic string // errors after dir
	}{
		{"missing directory", filepath.Join(dir, "nodir", "x.jsonl"),
			"/nodir/x.jsonl cannot be written: the directory " + dir + "/nodir does not exist (create it first)",
			"/nodir/x.jsonl: the directory " + dir + "/nodir does not exist (create it first)"},
		{"missing directories", filepath.Join(dir, "a", "b", "x.jsonl"),
			"/a/b/x.jsonl cannot be written: the directory " + dir + "/a/b does not exist (create it first)",
			"/a/b/x.jsonl: the directory " + dir + "/a/b does not exist (create it first)"},
		{"a file as the directory", filepath.Join(file, "x.jsonl"),
			"/file/x.jsonl cannot be made: " + dir + "/file is a file, not a directory",
			"/file/x.jsonl: " + dir + "/file is not a directory"},
		{"an existing directory", filepath.Join(dir, "x.jsonl"), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errText := func(err error) string {
				if err == nil {
					return ""
				}
				return strings.TrimPrefix(err.Error(), dir)
			}
			if diff := cmp.Diff(tc.check, errText(CheckOutFile(tc.path))); diff != "" {
				t.Errorf("CheckOutFile (-want +got):\n%s", diff)
			}
			err := WriteAtomic(tc.path, func(w io.Writer) error { _, err := io.WriteString(w, "x\n"); return err })
			if diff := cmp.Diff(tc.writeAtomic, errText(err)); diff != "" {
				t.Errorf("WriteAtomic (-want +got):\n%s", diff)
			}
		})
	}
}
