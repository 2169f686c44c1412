package results

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Own records a file the command writes inside its output directory
// under a name of the user's (sim gate's --junit or --markdown inside
// --out), rel being its path there: the marker lists it, so the next
// command replaces it as sim's own (a file put beside it by hand is still
// the user's). It returns where to write the file in the staging
// directory. A name sim writes itself is refused.
func (s *StagedDir) Own(rel string) (string, error) {
	if err := CheckOwnable(rel); err != nil {
		return "", err
	}
	f, err := os.OpenFile(filepath.Join(s.Dir, OutputMarker), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(filepath.ToSlash(filepath.Clean(rel)) + "\n"); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return filepath.Join(s.Dir, rel), nil
}

// CheckOwnable refuses a path inside an output directory that Own cannot
// record: one outside it, the directory itself, or a name (or under a
// folder) sim writes there itself.
func CheckOwnable(rel string) error {
	clean := filepath.Clean(rel)
	if rel == "" || clean == "." || !filepath.IsLocal(clean) {
		return fmt.Errorf("%q is not a file inside the output directory", rel)
	}
	top, _, _ := strings.Cut(filepath.ToSlash(clean), "/")
	if slices.Contains(simOutputs, top) || lockName.MatchString(top) || stagingName.MatchString(top) {
		return fmt.Errorf("%q: sim writes %s there itself", rel, top)
	}
	return nil
}

// maxMarker bounds the marker read back (a list of owned files).
const maxMarker = 1 << 20

// readOwned reads the files the marker of dir lists (Own).
func readOwned(dir string) (map[string]bool, error) {
	p := filepath.Join(dir, OutputMarker)
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
		return nil, err // not one sim wrote (a folder, a FIFO): it lists nothing
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxMarker+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxMarker {
		return nil, fmt.Errorf("%s: more than %d bytes: not a marker sim wrote", filepath.Join(dir, OutputMarker), maxMarker)
	}
	owned := map[string]bool{}
	for line := range strings.Lines(string(data)) {
		if line = strings.TrimSuffix(line, "\n"); line != "" {
			owned[line] = true
		}
	}
	return owned, nil
}

// notOwned lists what the entry name of dir holds that the marker does not
// list (none: the entry is sim's): a file not listed, or in a folder any
// file or link not listed.
func notOwned(dir, name string, owned map[string]bool) []string {
	if len(owned) == 0 {
		return []string{name}
	}
	var bad []string
	err := filepath.WalkDir(filepath.Join(dir, name), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() || !owned[filepath.ToSlash(rel)] {
			bad = append(bad, rel)
		}
		return nil
	})
	if err != nil {
		return []string{name}
	}
	return bad
}
