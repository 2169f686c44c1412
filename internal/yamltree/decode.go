package yamltree

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/evalsched/lab/internal/field"
	"go.yaml.in/yaml/v3"
)

// ErrEmpty is Parse's error for data that holds no YAML document.
var ErrEmpty = errors.New("no YAML document")

// An At is a value refused while decoding (an UnmarshalYAML's error) at
// its node's line and, when not 0, column; Err adds the field path there.
type At struct {
	Line, Column int
	Msg          string
}

func (e *At) Error() string {
	if e.Column > 0 {
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// Parse parses data as exactly one YAML document: its tree, ErrEmpty when
// there is none, or a *field.Error at the line of a syntax error or of a
// second document (what names the input in that message: "a scenario").
func Parse(data []byte, what string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, ErrEmpty
		}
		return nil, atFault(data, Err(nil, nil, err))
	}
	if len(root.Content) == 0 {
		return nil, ErrEmpty
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, &field.Error{Line: next.Line, Msg: "a second YAML document (---): " + what + " is one document"}
	case !errors.Is(err, io.EOF):
		return nil, atFault(data, Err(&root, nil, err))
	}
	return &root, nil
}

// atFault moves a syntax error the library placed at the line where the
// collection at fault opens (a stray list item at line 40 of a mapping
// opened at line 3 is reported at 3), or at no line (a fault on the first
// line), to the first line at which the document cut after it fails with
// the same message, naming the opening line beside it.
func atFault(data []byte, err error) error {
	fe, ok := err.(*field.Error)
	if !ok || (fe.Line > 0 && !isParserError(fe.Msg)) {
		return err
	}
	at := faultLine(data, fe.Msg)
	if at == 0 || at == fe.Line {
		return err
	}
	if fe.Line > 0 {
		fe.Msg += fmt.Sprintf(" (in the collection that opens at line %d)", fe.Line)
	}
	fe.Line = at
	return fe
}

// faultLine is the first line k such that the document's first k lines fail
// to parse with msg, found by bisection (a scenario file parses in
// microseconds); 0 if the whole document does not.
func faultLine(data []byte, msg string) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	fails := func(k int) bool {
		dec := yaml.NewDecoder(bytes.NewReader(bytes.Join(lines[:k], nil)))
		for {
			var n yaml.Node
			err := dec.Decode(&n)
			switch {
			case err == nil:
				continue
			case errors.Is(err, io.EOF):
				return false
			}
			got := strings.TrimPrefix(err.Error(), "yaml: ")
			if m := lineMsg.FindStringSubmatch(err.Error()); m != nil {
				got = m[3]
			}
			return got == msg
		}
	}
	lo, hi := 0, len(lines)
	if !fails(hi) {
		return 0
	}
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; fails(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// Decode decodes data, whose tree Parse made root, into v strictly: a key
// that names no field is refused, and the error is Err's.
func Decode(data []byte, root *yaml.Node, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return Err(root, reflect.TypeOf(v), err)
	}
	return nil
}

var (
	// lineMsg is the YAML library's "line N: msg" (its syntax errors
	// prefixed "yaml: "), or an At's "line N, column C: msg".
	lineMsg = regexp.MustCompile(`^(?:yaml: )?line (\d+)(?:, column (\d+))?: (.*)$`)
	// notFound is the library's message for a key no field names.
	notFound = regexp.MustCompile(`^field (\S+) not found in type `)
)

// Err turns an error of the YAML library, or an *At, into a *field.Error
// at its line (SyntaxLine) and, when root (the tree decoded) is not nil,
// the field path there: the value at the column when one is known, else
// the deepest key on the line. Of several decoding messages the first is
// kept. A key no field names becomes "unknown field (have ...)", listing
// the keys of the struct that holds it inside t (the type decoded into),
// instead of the library's text naming Go types.
func Err(root *yaml.Node, t reflect.Type, err error) error {
	var at *At
	var te *yaml.TypeError
	msg := err.Error()
	switch {
	case errors.As(err, &at):
		msg = at.Error()
	case errors.As(err, &te) && len(te.Errors) > 0:
		msg = te.Errors[0]
	}
	m := lineMsg.FindStringSubmatch(msg)
	if m == nil {
		return &field.Error{Msg: strings.TrimPrefix(msg, "yaml: ")}
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	fe := &field.Error{Line: SyntaxLine(line, m[3]), Msg: m[3]}
	if k := notFound.FindStringSubmatch(fe.Msg); k != nil {
		fe.Path, fe.Msg = k[1], "unknown field"
		if root != nil {
			fe.Path = PathAtLine(root, fe.Line, k[1])
		}
		if have := keysAt(t, fe.Path); len(have) > 0 {
			fe.Msg += " (have " + strings.Join(have, ", ") + ")"
		}
		return fe
	}
	if root != nil {
		fe.Path = PathAtLine(root, fe.Line, "")
		if col > 0 {
			fe.Path = cmp.Or(PathAt(root, fe.Line, col), fe.Path)
		}
	}
	return fe
}

// keysAt is the keys of the struct that holds the last field of path (a
// path such as "checks[0].lane") inside type t, sorted; nil if the path
// does not lead through structs and lists.
func keysAt(t reflect.Type, path string) []string {
	if t == nil {
		return nil
	}
	parts := strings.Split(path, ".")
	for i, part := range parts {
		name, _, indexed := strings.Cut(part, "[")
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return nil
		}
		fields := map[string]reflect.Type{}
		Fields(t, fields)
		if i == len(parts)-1 {
			return slices.Sorted(maps.Keys(fields))
		}
		if t = fields[name]; t == nil {
			return nil
		}
		if indexed {
			for t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
			if t.Kind() != reflect.Slice {
				return nil
			}
			t = t.Elem()
		}
	}
	return nil
}
