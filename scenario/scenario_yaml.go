package scenario

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/internal/yamltree"
	"github.com/evalsched/lab/workloads"
	"go.yaml.in/yaml/v3"
)

// The YAML pre-pass: before the document is decoded, every node is checked
// against the Go type it will fill, so that the decoder never truncates,
// converts or skips anything silently. A number meant as an integer must be
// a whole number (9.5 is refused, not truncated to 9), every number must be
// finite (no .nan or .inf), a duration must parse and stay within
// MaxDuration, and every key must name a field. Each problem is a
// *field.Error at the node's line and path.

// MaxDuration is the longest duration a scenario may set (one year): the
// limit request traces keep too (workloads.MaxDuration).
const MaxDuration = workloads.MaxDuration

var (
	durationType      = reflect.TypeFor[time.Duration]()
	distType          = reflect.TypeFor[workloads.Dist]()
	nodeType          = reflect.TypeFor[yaml.Node]() // kept as YAML (variants), checked when used
	policyConfigsType = reflect.TypeFor[PolicyConfigs]()
)

// checkDocument checks the YAML tree against the Scenario type.
func checkDocument(root *yaml.Node) error {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	return checkNode(n, reflect.TypeFor[Scenario](), "")
}

func nodeErr(n *yaml.Node, path, format string, args ...any) error {
	return &field.Error{Line: n.Line, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// checkNode checks n against the type t it will be decoded into.
func checkNode(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.ShortTag() == "!!null" {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == nodeType:
		return nil
	case t == distType:
		if n.Kind == yaml.ScalarNode {
			return checkFloat(n, path)
		}
		return checkStruct(n, t, path)
	case t == durationType:
		return checkDuration(n, path)
	case reflect.PointerTo(t).Implements(textEnumType):
		return checkEnum(n, t, path)
	}
	switch t.Kind() {
	case reflect.Struct:
		return checkStruct(n, t, path)
	case reflect.Map:
		return checkMap(n, t, path)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return nodeErr(n, path, "want a list, got %s", describe(n))
		}
		for i, c := range n.Content {
			if err := checkNode(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return checkInt(n, path)
	case reflect.Float32, reflect.Float64:
		return checkFloat(n, path)
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			return nodeErr(n, path, "want true or false, got %s", describe(n))
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			return nodeErr(n, path, "want a string, got %s", describe(n))
		}
	}
	return nil
}

// describe names a node for a message: a scalar's text, else its kind.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return strconv.Quote(n.Value)
}

func checkStruct(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind != yaml.MappingNode {
		return nodeErr(n, path, "want a mapping, got %s", describe(n))
	}
	fields := map[string]reflect.Type{}
	yamltree.Fields(t, fields)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value == "<<" { // a merge key: its mapping fills the same struct
			if err := checkNode(v, t, path); err != nil {
				return err
			}
			continue
		}
		ft, ok := fields[k.Value]
		if !ok && t == policyConfigsType {
			// the block of a registered policy with settings
			ft = configBlockType(k.Value)
			ok = ft != nil
			if !ok {
				for _, n := range configBlockNames() {
					fields[n] = nil
				}
			}
		}
		if !ok {
			return nodeErr(k, field.Join(path, k.Value), "unknown field (have %s)", strings.Join(slices.Sorted(maps.Keys(fields)), ", "))
		}
		if err := checkNode(v, ft, field.Join(path, k.Value)); err != nil {
			return err
		}
	}
	return nil
}

func checkMap(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind != yaml.MappingNode {
		return nodeErr(n, path, "want a mapping, got %s", describe(n))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode {
			return nodeErr(k, path, "want a plain key, got %s", describe(k))
		}
		if err := checkNode(n.Content[i+1], t.Elem(), field.Join(path, k.Value)); err != nil {
			return err
		}
	}
	return nil
}

// scalarNumber parses a number node the way YAML resolves it.
func scalarNumber(n *yaml.Node) (float64, bool) {
	if n.Kind != yaml.ScalarNode {
		return 0, false
	}
	switch n.ShortTag() {
	case "!!int", "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return 0, false
		}
		return f, true
	}
	// A quoted or otherwise plain number: what strconv reads (Dist does).
	f, err := strconv.ParseFloat(n.Value, 64)
	return f, err == nil || errors.Is(err, strconv.ErrRange)
}

func checkFloat(n *yaml.Node, path string) error {
	f, ok := scalarNumber(n)
	switch {
	case !ok:
		return nodeErr(n, path, "want a number, got %s", describe(n))
	case math.IsNaN(f) || math.IsInf(f, 0):
		return nodeErr(n, path, "must be a finite number, got %s", n.Value)
	}
	return nil
}

// maxExactInt is the largest integer a float64 holds exactly (2^53).
const maxExactInt = 1 << 53

func checkInt(n *yaml.Node, path string) error {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" {
		return nil // the decoder reports overflow of the field's size itself
	}
	f, ok := scalarNumber(n)
	switch {
	case !ok || n.ShortTag() == "!!str":
		return nodeErr(n, path, "want a whole number, got %s", describe(n))
	case math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > maxExactInt:
		return nodeErr(n, path, "must be a whole number within ±2^53, got %s", n.Value)
	case f != math.Trunc(f):
		return nodeErr(n, path, "must be a whole number, got %s", n.Value)
	}
	return nil
}

func checkDuration(n *yaml.Node, path string) error {
	if n.Kind != yaml.ScalarNode {
		return nodeErr(n, path, "want a duration such as 90s or 2h30m, got %s", describe(n))
	}
	d, err := time.ParseDuration(n.Value)
	switch {
	case err == nil && n.ShortTag() == "!!int":
		// A bare 0: ParseDuration takes it, the YAML decoder does not.
		return nodeErr(n, path, "want a duration with a unit such as 0s, 90s or 2h30m, got %s", n.Value)
	case err != nil && n.ShortTag() != "!!str":
		return nodeErr(n, path, "want a duration with a unit such as 90s or 2h30m, got %s", n.Value)
	case err != nil:
		return nodeErr(n, path, "want a duration such as 90s or 2h30m, got %q", n.Value)
	case d > MaxDuration || d < -MaxDuration:
		return nodeErr(n, path, "must be at most %v (one year), got %s", MaxDuration, n.Value)
	}
	return nil
}
