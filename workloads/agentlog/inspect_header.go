package agentlog

import (
	"archive/zip"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/evalsched/lab/internal/input"
)

// errHeaderRead stops a .json log's stream once its header is read.
var errHeaderRead = errors.New("header read")

// InspectHeader reads only an Inspect log's header (a .eval's
// header.json, else _journal/start.json; a .json log's eval member): the
// run it names, without its samples.
func InspectHeader(file string) (*Run, error) {
	var h inspectHeader
	if strings.EqualFold(path.Ext(file), ".eval") {
		f, err := input.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return nil, err
		}
		z, err := zip.NewReader(f, fi.Size())
		if err != nil {
			return nil, fmt.Errorf("%s: not a .eval zip: %v", file, err)
		}
		z.RegisterDecompressor(zipZstd, zstdDecompressor)
		for _, name := range []string{"header.json", "_journal/start.json"} {
			for _, m := range z.File {
				if m.Name == name {
					if err := decodeMember(m, &h); err != nil {
						return nil, fmt.Errorf("%s: %v", member(file, name), err)
					}
					return inspectRun(&h, file), nil
				}
			}
		}
		return nil, fmt.Errorf("%s: no header.json", file)
	}
	f, err := openFile(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := newStream(f)
	seen := false
	err = s.members("EvalLog", func(key string) error {
		if key != "eval" {
			return s.skip()
		}
		seen = true
		if err := s.dec.Decode(&h.Eval); err != nil {
			return err
		}
		return errHeaderRead
	})
	if !seen || (err != nil && !errors.Is(err, errHeaderRead)) {
		return nil, fmt.Errorf("%s: not an Inspect log (no eval header)", file)
	}
	return inspectRun(&h, file), nil
}
