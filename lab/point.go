package lab

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/internal/yamltree"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"go.yaml.in/yaml/v3"
)

// A PointSpec is one configuration that gate, sweep and tune run over
// seeds: a scenario, a policy (or one of the scenario's variants) and an
// overlay of scenario keys merged onto it (scenario.Scenario.WithOverlay).
type PointSpec struct {
	ID, Name string
	File     string // the gate, sweep or tune file the point is written in
	Scenario string // a file path (resolved) or an embedded name
	Policy   string
	Variant  string
	Overlay  *yaml.Node       // a mapping, or nil
	Params   []scenario.Param // the grid's or tune's parameters of the point (the CSVs' columns)
	// Settings are the dotted settings the overlay was built from: the
	// parameters, or a list point's overlay flattened. Each is checked
	// against the scenario (a list item it names must exist).
	Settings []scenario.Param
	// Baseline: also run the fixed-lane policy on every seed, for the
	// multiplier.
	Baseline bool
}

// ResolveScenario reads a scenario reference in a file at path: a file
// relative to that file's directory when one exists there, else as given
// (a path from the working directory, or an embedded scenario's name).
func ResolveScenario(path, ref string) string {
	if ref == "" || filepath.IsAbs(ref) {
		return ref
	}
	if p := filepath.Join(filepath.Dir(path), ref); results.FileExists(p) {
		return p
	}
	return ref
}

// MaxSeeds is the most seeds one sweep, tune or compare --seeds runs.
const MaxSeeds = 1000

// seedRange is the n seeds from first (at least 1) a sweep or tune file asks
// for, refused at the line of its seeds key when n is not in 1..MaxSeeds.
func seedRange(path string, data []byte, n int, first uint64) ([]uint64, error) {
	if n < 1 || n > MaxSeeds {
		return nil, &field.Error{File: path, Line: lineIn(data, "seeds"), Path: "seeds", Msg: fmt.Sprintf("must be in 1..%d, got %d", MaxSeeds, n)}
	}
	first = max(1, first)
	if first > math.MaxUint64-uint64(n-1) {
		return nil, &field.Error{File: path, Line: lineIn(data, "first_seed"), Path: "first_seed",
			Msg: fmt.Sprintf("%d with %d seeds: the last seed would pass %d", first, n, uint64(math.MaxUint64))}
	}
	seeds := make([]uint64, n)
	for k := range seeds {
		seeds[k] = first + uint64(k)
	}
	return seeds, nil
}

// lineIn is the line of the field (a path such as "checks[2].metric")
// in a YAML file's text, the deepest line of it that is there (0 if none).
func lineIn(data []byte, field string) int {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil {
		return 0
	}
	return yamltree.Line(&root, field)
}
