package agentlog

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/evalsched/lab/internal/input"
	"github.com/klauspost/compress/zstd"
)

// readInspectZip reads a .eval zip: header.json, then samples/*.json in
// name order, one member in memory at a time. A member that cannot be
// read is a Problem; the others are still read.
func readInspectZip(file string, sink Sink) error {
	f, err := input.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	return readInspectZipFrom(f, fi.Size(), file, sink)
}

func readInspectZipFrom(r io.ReaderAt, size int64, file string, sink Sink) error {
	z, err := zip.NewReader(r, size)
	if err != nil {
		return fmt.Errorf("%s: not a .eval zip: %v", file, err)
	}
	z.RegisterDecompressor(zipZstd, zstdDecompressor)
	var h inspectHeader
	var samples []*zip.File
	haveHeader := false
	for _, f := range z.File {
		switch {
		case f.Name == "header.json":
			// A header that cannot be read refuses the log: its settings
			// (max_connections, max_samples) would silently be defaults.
			if err := decodeMember(f, &h); err != nil {
				return problem(member(file, f.Name), 0, "", "%v (the log's header is unreadable: the log is refused)", err)
			}
			if err := h.checkSettings(); err != nil {
				err.File = member(file, f.Name)
				return err
			}
			haveHeader = true
		case strings.HasPrefix(f.Name, "samples/") && strings.HasSuffix(f.Name, ".json"):
			samples = append(samples, f)
		}
	}
	if !haveHeader {
		sink.note("%s: no readable header.json: jobs named from their samples alone", file)
	}
	slices.SortFunc(samples, func(a, b *zip.File) int { return strings.Compare(a.Name, b.Name) })
	for _, f := range samples {
		var smp inspectSample
		where := member(file, f.Name)
		if err := decodeMember(f, &smp); err != nil {
			sink.Skip(problem(where, 0, "", "%v", err))
			continue
		}
		inspectSession(&h, &smp, where, 0, "", sink)
	}
	return nil
}

func decodeMember(f *zip.File, v any) error {
	if f.UncompressedSize64 > MaxMemberBytes {
		return fmt.Errorf("member of %d bytes, above the %d-byte bound on one member", f.UncompressedSize64, int64(MaxMemberBytes))
	}
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	// The header's size can lie; the bound holds on what is inflated.
	lr := &io.LimitedReader{R: rc, N: MaxMemberBytes + 1}
	dec := json.NewDecoder(lr)
	if err := dec.Decode(v); err != nil {
		if lr.N <= 0 {
			return fmt.Errorf("member inflates past the %d-byte bound on one member", int64(MaxMemberBytes))
		}
		return fmt.Errorf("invalid JSON: %s", jsonMsg(err))
	}
	return nil
}

// MaxMemberBytes bounds one inflated .eval member (a sample): a zip bomb
// is refused, not read into memory.
const MaxMemberBytes = 1 << 30

// zipZstd is the zip method id of Zstandard (APPNOTE 4.4.5: 93), which
// inspect_ai writes .eval members with from 0.3.206 (CHANGELOG: "Eval
// Logs: Enable zstd compression by default for writing logs"; read
// 2026-12-06).
const zipZstd = 93

// zstdDecompressor inflates a zstd member (github.com/klauspost/compress/zstd:
// a maintained, pure-Go decoder), its window bounded so a crafted frame
// cannot ask for gigabytes.
func zstdDecompressor(r io.Reader) io.ReadCloser {
	d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(1<<27))
	if err != nil {
		return io.NopCloser(errReader{err})
	}
	return d.IOReadCloser()
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
