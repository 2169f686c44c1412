package lab

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/evalsched/lab/scenario"
	"go.yaml.in/yaml/v3"
)

// SweepFile is a sweep file (README "Sweep file"): points × seeds.
type SweepFile struct {
	Scenario string    `yaml:"scenario"`
	Policy   string    `yaml:"policy"`
	Variant  string    `yaml:"variant"`
	Baseline bool      `yaml:"baseline"`
	Overlay  yaml.Node `yaml:"overlay"`
	Seeds    int       `yaml:"seeds"`
	First    uint64    `yaml:"first_seed"`
	Grid     yaml.Node `yaml:"grid"`
	Points   []struct {
		Name    string    `yaml:"name"`
		Overlay yaml.Node `yaml:"overlay"`
	} `yaml:"points"`
	Lanes   []string `yaml:"lanes"`
	Metrics []string `yaml:"metrics"`
}

// Sweep is a sweep file expanded: its points in order, its seeds, and the
// keys its grid varies (the CSVs' parameter columns).
type Sweep struct {
	Points    []PointSpec
	Seeds     []uint64
	ParamKeys []string
	Lanes     []string // empty = all
	Metrics   []string // empty = all
	Hash      string   // of the sweep file's bytes: a resumed or merged sweep must be the same one
}

// LoadSweep reads and expands a sweep file; its dotted keys are read
// against the scenario schema (scenario.SplitKey).
func LoadSweep(path string) (*Sweep, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f SweepFile
	if err := decodeStrict(path, data, &f); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	s := &Sweep{Lanes: f.Lanes, Metrics: f.Metrics, Hash: hex.EncodeToString(sum[:8])}
	if s.Seeds, err = seedRange(path, data, f.Seeds, f.First); err != nil {
		return nil, err
	}
	for _, m := range f.Metrics {
		if !slices.Contains(MetricNames, m) {
			return nil, fmt.Errorf("%s: metrics: unknown %q (have %s)", at(path, data, "metrics"), m, strings.Join(MetricNames, ", "))
		}
	}
	base := PointSpec{Scenario: ResolveScenario(path, f.Scenario), Policy: f.Policy, Variant: f.Variant, Baseline: f.Baseline}
	var overlay *yaml.Node
	if f.Overlay.Kind == yaml.MappingNode {
		overlay = &f.Overlay
	}
	grid, keys, err := expandGrid(path, &f.Grid)
	if err != nil {
		return nil, err
	}
	s.ParamKeys = keys
	for _, params := range grid {
		p := base
		p.Params, p.Settings = params, params
		if p.Overlay, err = scenario.WithParams(overlay, params); err != nil {
			return nil, err // every key is in the first point: a bad one is named there, at its line
		}
		s.Points = append(s.Points, p)
	}
	for i, lp := range f.Points {
		p := base
		p.Name = lp.Name
		p.Overlay = overlay
		if lp.Overlay.Kind == yaml.MappingNode {
			p.Settings = flatten(path, fmt.Sprintf("points[%d].overlay.", i), "", &lp.Overlay)
			if p.Overlay, err = scenario.WithParams(overlay, p.Settings); err != nil {
				return nil, err
			}
		}
		s.Points = append(s.Points, p)
	}
	if len(s.Points) == 0 {
		return nil, fmt.Errorf("%s: no points: give a grid or points", path)
	}
	for i := range s.Points {
		s.Points[i].ID = fmt.Sprintf("p%04d", i)
		if s.Points[i].Name == "" {
			s.Points[i].Name = paramName(s.Points[i].Params)
		}
	}
	return s, nil
}

// expandGrid is the cartesian product of the grid's keys (file order, the
// last varying fastest).
func expandGrid(path string, g *yaml.Node) ([][]scenario.Param, []string, error) {
	if g.Kind == 0 {
		return nil, nil, nil
	}
	if g.Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("%s:%d: grid: must be a mapping of dotted keys to lists of values", path, g.Line)
	}
	out := [][]scenario.Param{nil}
	var keys []string
	for i := 0; i+1 < len(g.Content); i += 2 {
		k, vs := g.Content[i].Value, g.Content[i+1]
		if vs.Kind != yaml.SequenceNode || len(vs.Content) == 0 {
			return nil, nil, fmt.Errorf("%s:%d: grid.%s: must be a non-empty list of values", path, vs.Line, k)
		}
		keys = append(keys, k)
		var next [][]scenario.Param
		for _, prev := range out {
			for _, v := range vs.Content {
				next = append(next, append(slices.Clone(prev), scenario.Param{Key: k, Value: v, Where: fmt.Sprintf("%s:%d: grid.%s", path, g.Content[i].Line, k)}))
			}
		}
		out = next
	}
	return out, keys, nil
}

// flatten turns a mapping into dotted settings (leaves only); each names
// where it was written: path, its line, field then its key.
func flatten(path, field, prefix string, m *yaml.Node) []scenario.Param {
	var out []scenario.Param
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := prefix+m.Content[i].Value, m.Content[i+1]
		if v.Kind == yaml.MappingNode {
			out = append(out, flatten(path, field, k+".", v)...)
			continue
		}
		out = append(out, scenario.Param{Key: k, Value: v, Where: fmt.Sprintf("%s:%d: %s%s", path, m.Content[i].Line, field, k)})
	}
	return out
}

func paramName(params []scenario.Param) string {
	var parts []string
	for _, p := range params {
		k := p.Key[strings.LastIndex(p.Key, ".")+1:]
		parts = append(parts, k+"="+p.Value.Value)
	}
	return strings.Join(parts, ",")
}

// Keep reports whether a figure is one the sweep writes.
func (s *Sweep) Keep(k MetricKey) bool {
	return (len(s.Lanes) == 0 || slices.Contains(s.Lanes, k.Lane)) && (len(s.Metrics) == 0 || slices.Contains(s.Metrics, k.Metric))
}
