package lab

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/scenario"
	"go.yaml.in/yaml/v3"
)

// SweepFile is a sweep file (docs/reference/decision-files.md, "Sweep file"): points × seeds.
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
	File      string
	Points    []PointSpec
	Seeds     []uint64
	ParamKeys []string
	Lanes     []string // empty = all
	Metrics   []string // empty = all
	// Hash identifies the sweep: the file's bytes and every point's Digest
	// (its scenario after overlays, so an edited scenario file is another
	// sweep). A resumed or merged sweep must be the same one.
	Hash string
}

// MaxSweepPoints bounds a sweep's points (grid and list), counted before
// the grid is expanded: a grid of a million points is refused, not built.
const MaxSweepPoints = 10_000

// LoadSweep reads and expands a sweep file; its dotted keys are read
// against the scenario schema (scenario.SplitKey), and every point is
// built (its scenario read, overlay merged, items named checked) before
// anything runs.
func LoadSweep(path string) (*Sweep, error) {
	const what, need = "a sweep", "scenario, seeds and a grid or points"
	var f SweepFile
	data, root, bad, err := decodeFile(path, what, need, &f)
	if err != nil {
		return nil, err
	}
	s := &Sweep{File: path, Lanes: f.Lanes, Metrics: f.Metrics}
	if err := checkPointRefs(path, root, "", f.Scenario, f.Policy, f.Variant, &f.Overlay); err != nil {
		return nil, err
	}
	if s.Seeds, err = seedRange(path, data, f.Seeds, f.First); err != nil {
		return nil, err
	}
	for i, m := range f.Metrics {
		if !slices.Contains(MetricNames, m) {
			return nil, bad(fmt.Sprintf("metrics[%d]", i), "unknown %q (have %s)", m, strings.Join(MetricNames, ", "))
		}
		if slices.Index(f.Metrics, m) < i {
			return nil, bad(fmt.Sprintf("metrics[%d]", i), "%q given twice", m)
		}
		f.Baseline = f.Baseline || NeedsBaseline(m)
	}
	base := PointSpec{File: path, Scenario: ResolveScenario(path, f.Scenario), Policy: f.Policy, Variant: f.Variant, Baseline: f.Baseline}
	var overlay *yaml.Node
	if f.Overlay.Kind == yaml.MappingNode {
		overlay = &f.Overlay
	}
	grid, keys, err := expandGrid(path, &f.Grid, len(f.Points))
	if err != nil {
		return nil, err
	}
	s.ParamKeys = keys
	if err := notInOverlay(path, root, overlay, keys, "grid"); err != nil {
		return nil, err
	}
	for _, params := range grid {
		p := base
		p.Params, p.Settings = params, params
		if p.Overlay, err = scenario.WithParams(overlay, params); err != nil {
			return nil, err // every key is in the first point: a bad one is named there, at its line
		}
		s.Points = append(s.Points, p)
	}
	names := map[string]int{}
	for i, lp := range f.Points {
		at := fmt.Sprintf("points[%d]", i)
		p := base
		p.Name = lp.Name
		if lp.Name == "" {
			return nil, bad(at, "needs a name (the CSVs' name column)")
		}
		if j, ok := names[lp.Name]; ok {
			return nil, bad(at+".name", "%q given twice (points[%d])", lp.Name, j)
		}
		names[lp.Name] = i
		p.Overlay = overlay
		switch lp.Overlay.Kind {
		case yaml.MappingNode:
			p.Settings = flatten(path, at+".overlay.", "", &lp.Overlay)
			if p.Overlay, err = scenario.WithParams(overlay, p.Settings); err != nil {
				return nil, err
			}
		case 0:
		default:
			return nil, bad(at+".overlay", "must be a mapping of scenario keys, got %s", kindName(&lp.Overlay))
		}
		s.Points = append(s.Points, p)
	}
	if len(s.Points) == 0 {
		return nil, bad("", "no points: give a grid or points")
	}
	for i := range s.Points {
		s.Points[i].ID = fmt.Sprintf("p%04d", i)
		if s.Points[i].Name == "" {
			s.Points[i].Name = paramName(s.Points[i].Params)
		}
	}
	// Every point built, its digest in the sweep's hash; the lanes named
	// must be lanes of the scenario.
	h := sha256.New()
	h.Write(data)
	cache := map[string]*scenario.Scenario{}
	var lanes []string
	for _, p := range s.Points {
		v, err := BuildPoint(p, cache)
		if err != nil {
			return nil, refError(path, root, "", err)
		}
		fmt.Fprintf(h, "\n%s %s", p.ID, Digest(v))
		if lanes == nil {
			lanes = append([]string{AllLanes}, v.Scenario.Catalogue()...)
		}
	}
	for i, l := range f.Lanes {
		if !slices.Contains(lanes, l) {
			return nil, bad(fmt.Sprintf("lanes[%d]", i), "the scenario has no lane %q (have %s)", l, strings.Join(lanes, ", "))
		}
		if slices.Index(f.Lanes, l) < i {
			return nil, bad(fmt.Sprintf("lanes[%d]", i), "%q given twice", l)
		}
	}
	s.Hash = hex.EncodeToString(h.Sum(nil)[:8])
	return s, nil
}

// notInOverlay refuses a grid key or tune parameter that the file's
// overlay also sets: every point's value would replace the overlay's,
// which then says something the runs do not do.
func notInOverlay(path string, root, overlay *yaml.Node, keys []string, what string) error {
	if overlay == nil {
		return nil
	}
	for _, p := range flatten(path, "overlay.", "", overlay) {
		for _, k := range keys {
			if p.Key == k || strings.HasPrefix(k, p.Key+".") || strings.HasPrefix(p.Key, k+".") {
				return fieldErr(path, root, "overlay."+p.Key, "also set by the %s (%s), whose values replace it: set it in one place", what, k)
			}
		}
	}
	return nil
}

// expandGrid is the cartesian product of the grid's keys (file order, the
// last varying fastest), counted first: with listed more points, at most
// MaxSweepPoints. A key given twice, or a value given twice for a key,
// is refused (its points would be labelled with values they did not run,
// or run twice).
func expandGrid(path string, g *yaml.Node, listed int) ([][]scenario.Param, []string, error) {
	if g.Kind == 0 || g.Kind == yaml.ScalarNode && g.Tag == "!!null" {
		return nil, nil, nil
	}
	if g.Kind != yaml.MappingNode {
		return nil, nil, &field.Error{File: path, Line: g.Line, Path: "grid", Msg: "must be a mapping of dotted keys to lists of values"}
	}
	n := 1
	for i := 0; i+1 < len(g.Content); i += 2 {
		k, vs := g.Content[i], g.Content[i+1]
		at := "grid." + k.Value
		if vs.Kind != yaml.SequenceNode || len(vs.Content) == 0 {
			return nil, nil, &field.Error{File: path, Line: vs.Line, Path: at, Msg: "must be a non-empty list of values"}
		}
		for j, v := range vs.Content {
			if v.Kind != yaml.ScalarNode {
				return nil, nil, &field.Error{File: path, Line: v.Line, Path: fmt.Sprintf("%s[%d]", at, j), Msg: "a grid value is a scalar (a number, a duration, a word); give a list or mapping in points[].overlay"}
			}
			for _, w := range vs.Content[:j] {
				if w.Value == v.Value {
					return nil, nil, &field.Error{File: path, Line: v.Line, Path: fmt.Sprintf("%s[%d]", at, j), Msg: fmt.Sprintf("%q given twice", v.Value)}
				}
			}
		}
		if n > (MaxSweepPoints-listed)/len(vs.Content) {
			return nil, nil, &field.Error{File: path, Line: k.Line, Path: at, Msg: fmt.Sprintf("the grid has more than %d points: a sweep runs at most %d (split it, or sweep fewer values)", MaxSweepPoints-listed, MaxSweepPoints)}
		}
		n *= len(vs.Content)
	}
	out := [][]scenario.Param{nil}
	var keys []string
	for i := 0; i+1 < len(g.Content); i += 2 {
		k, vs := g.Content[i].Value, g.Content[i+1]
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
