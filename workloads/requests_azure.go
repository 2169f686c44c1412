package workloads

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

func (r *requestReader) readAzureHeader() {
	rec, err := r.cr.Read()
	if err == io.EOF {
		r.fail(1, "header", "empty file (want TIMESTAMP,ContextTokens,GeneratedTokens)")
		return
	}
	if err != nil {
		r.csvError(err)
		return
	}
	r.cols = [4]int{-1, -1, -1, -1}
	for i, h := range rec {
		switch strings.TrimPrefix(strings.TrimSpace(h), "\ufeff") {
		case "TIMESTAMP":
			r.cols[0] = i
		case "ContextTokens":
			r.cols[1] = i
		case "GeneratedTokens":
			r.cols[2] = i
		case "MaxTokens":
			r.cols[3] = i
		}
	}
	for i, name := range []string{"TIMESTAMP", "ContextTokens", "GeneratedTokens"} {
		if r.cols[i] < 0 {
			r.fail(1, name, "missing column (header %q)", strings.Join(rec, ","))
			return
		}
	}
	r.line = 1
}

func (r *requestReader) csvError(err error) {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		r.fail(pe.Line, "record", "%v", pe.Err)
		return
	}
	r.err, r.done = fmt.Errorf("%s: %w", r.name, err), true
}

// AzureLayout is the time layout of the Azure LLM inference trace.
const AzureLayout = "2006-01-02 15:04:05.9999999"

func (r *requestReader) readAzure() (time.Duration, int, int, bool) {
	if r.done {
		return 0, 0, 0, false
	}
	rec, err := r.cr.Read()
	if err == io.EOF {
		return 0, 0, 0, false
	}
	if err != nil {
		r.csvError(err)
		return 0, 0, 0, false
	}
	r.line, _ = r.cr.FieldPos(0)
	for i, name := range []string{"TIMESTAMP", "ContextTokens", "GeneratedTokens"} {
		if r.cols[i] >= len(rec) {
			r.fail(r.line, name, "missing: the row has %d fields", len(rec))
			return 0, 0, 0, false
		}
	}
	t, err := time.Parse(AzureLayout, strings.TrimSpace(rec[r.cols[0]]))
	if err != nil {
		r.fail(r.line, "TIMESTAMP", "want a time like 2023-11-16 18:17:03.9799600, got %q", rec[r.cols[0]])
		return 0, 0, 0, false
	}
	in, ok := r.tokens("ContextTokens", rec[r.cols[1]])
	if !ok {
		return 0, 0, 0, false
	}
	out, ok := r.tokens("GeneratedTokens", rec[r.cols[2]])
	if !ok {
		return 0, 0, 0, false
	}
	r.lastMax = 0
	if c := r.cols[3]; c >= 0 && c < len(rec) && strings.TrimSpace(rec[c]) != "" {
		if r.lastMax, ok = r.tokens("MaxTokens", rec[c]); !ok {
			return 0, 0, 0, false
		}
	}
	if !r.haveT0 {
		r.t0, r.haveT0 = t, true
	}
	d := t.Sub(r.t0)
	if d > MaxDuration {
		r.fail(r.line, "TIMESTAMP", "%s is more than %v after the first record", rec[r.cols[0]], MaxDuration)
		return 0, 0, 0, false
	}
	return d, in, out, true
}
