package field

import (
	"errors"
	"fmt"
	"strconv"
)

// Error is a problem with one field of an input.
type Error struct {
	File string // the input file; "" while unknown
	Line int    // 1-based line in File; 0 when unknown
	Path string // field path such as models[3].decode_rate; "" for the record as a whole
	Msg  string
}

func (e *Error) Error() string {
	s := ""
	if e.File != "" {
		s = e.File
		if e.Line > 0 {
			s += ":" + strconv.Itoa(e.Line)
		}
		s += ": "
	}
	if e.Path != "" {
		s += e.Path + ": "
	}
	return s + e.Msg
}

// Errorf returns an *Error at path with a formatted message.
func Errorf(path, format string, args ...any) error {
	return &Error{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// Under places err's path under prefix: a field error at "tick" under
// "policies.scheduler" becomes one at "policies.scheduler.tick". An error
// that is not a field error becomes one at prefix with its text as message.
func Under(prefix string, err error) error {
	if err == nil {
		return nil
	}
	var fe *Error
	if errors.As(err, &fe) {
		out := *fe
		out.Path = Join(prefix, fe.Path)
		return &out
	}
	return &Error{Path: prefix, Msg: err.Error()}
}

// Join joins two parts of a field path with a dot, skipping empty parts and
// the dot before an index ("models" + "[3]" = "models[3]").
func Join(prefix, path string) string {
	switch {
	case prefix == "":
		return path
	case path == "":
		return prefix
	case path[0] == '[':
		return prefix + path
	}
	return prefix + "." + path
}

// In locates err in file at line: a field error gains the file and line (a
// line it already has is kept); any other error is wrapped as a whole-file
// error keeping it for errors.Is.
func In(file string, line int, err error) error {
	if err == nil {
		return nil
	}
	var fe *Error
	if errors.As(err, &fe) {
		out := *fe
		out.File = file
		if out.Line == 0 {
			out.Line = line
		}
		return &out
	}
	if line > 0 {
		return fmt.Errorf("%s:%d: %w", file, line, err)
	}
	return fmt.Errorf("%s: %w", file, err)
}
