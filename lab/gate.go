package lab

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/internal/yamltree"
	"github.com/evalsched/lab/scenario"
	"go.yaml.in/yaml/v3"
)

// GateFile is a gate file (docs/reference/decision-files.md, "Gate file"): scenarios run on fixed
// seeds, and checks of their figures against committed baselines.
type GateFile struct {
	Baseline  string         `yaml:"baseline"`
	Scenarios []GateScenario `yaml:"scenarios"`
	Checks    []GateCheck    `yaml:"checks"`
}

// GateScenario is one configuration the gate runs.
type GateScenario struct {
	Name     string    `yaml:"name"`
	Scenario string    `yaml:"scenario"`
	Policy   string    `yaml:"policy"`
	Variant  string    `yaml:"variant"`
	Overlay  yaml.Node `yaml:"overlay"`
	Seeds    []uint64  `yaml:"seeds"`
}

// GateCheck is one check: a metric on lanes of some scenarios (all when
// none are named), with a floor (the figure must not fall below) or a
// ceiling (must not rise above).
type GateCheck struct {
	Metric    string     `yaml:"metric"`
	Lanes     []string   `yaml:"lanes"`
	Scenarios []string   `yaml:"scenarios"`
	Floor     *Tolerance `yaml:"floor"`
	Ceiling   *Tolerance `yaml:"ceiling"`
}

// Tolerance is how far a figure may move from its baseline: the mean over
// the seeds may move by the largest of relative × |baseline|, absolute,
// and k_se standard errors of the baseline's mean (the spread); with
// paired, each seed's value may move from that seed's own baseline value
// by at most paired × |that value| (reruns on the same seeds are exact, so
// this catches a change the spread over seeds hides); or a fixed threshold
// (no baseline), alone.
type Tolerance struct {
	Relative  float64  `yaml:"relative" json:"relative,omitempty"`
	Absolute  float64  `yaml:"absolute" json:"absolute,omitempty"`
	KSE       float64  `yaml:"k_se" json:"k_se,omitempty"`
	Paired    *float64 `yaml:"paired" json:"paired,omitempty"`
	Threshold *float64 `yaml:"threshold" json:"threshold,omitempty"`
	set       []string // the keys given, in file order
}

// Kind is how the tolerance finds its limit.
func (t Tolerance) Kind() ToleranceKind {
	switch {
	case t.Threshold != nil:
		return TolThreshold
	case t.Paired != nil && t.Relative == 0 && t.Absolute == 0 && t.KSE == 0:
		return TolPaired
	}
	return TolSpread
}

// UnmarshalYAML reads a tolerance strictly: known keys, numbers only,
// remembering which keys were given (a threshold beside a spread is
// refused by check).
func (t *Tolerance) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return &yamltree.At{Line: n.Line, Column: n.Column, Msg: "want a mapping of " + strings.Join(tolKeys, ", ")}
	}
	type plain Tolerance
	var p plain
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		// at the value's line and column: the path of its key, even in a
		// flow mapping
		if !slices.Contains(tolKeys, k.Value) {
			return &yamltree.At{Line: v.Line, Column: v.Column, Msg: "unknown field (have " + strings.Join(slices.Sorted(slices.Values(tolKeys)), ", ") + ")"}
		}
		if v.Kind != yaml.ScalarNode {
			return &yamltree.At{Line: v.Line, Column: v.Column, Msg: "want a number, got " + kindName(v)}
		}
		p.set = append(p.set, k.Value)
	}
	set := p.set
	if err := n.Decode(&p); err != nil {
		return err
	}
	*t = Tolerance(p)
	t.set = set
	return nil
}

var tolKeys = []string{"relative", "absolute", "k_se", "paired", "threshold"}

// check refuses a tolerance that cannot mean what it says: a number that
// is not finite or is negative, a threshold beside a spread or paired
// part (it would be ignored), or no part at all.
func (t Tolerance) check() (string, string) {
	vals := map[string]float64{"relative": t.Relative, "absolute": t.Absolute, "k_se": t.KSE}
	if t.Paired != nil {
		vals["paired"] = *t.Paired
	}
	for _, k := range t.set {
		v, ok := vals[k]
		if !ok {
			continue
		}
		if !finite(v) || v < 0 {
			return k, fmt.Sprintf("must be a finite number >= 0, got %g", v)
		}
	}
	if t.Threshold != nil {
		// Every figure is >= 0: a negative limit is no limit (a floor) or
		// one no run can meet (a ceiling).
		if !finite(*t.Threshold) || *t.Threshold < 0 {
			return "threshold", fmt.Sprintf("must be a finite number >= 0, got %g", *t.Threshold)
		}
		if len(t.set) > 1 {
			other := slices.DeleteFunc(slices.Clone(t.set), func(k string) bool { return k == "threshold" })
			return other[0], "cannot be given beside threshold (a fixed limit ignores the baseline): give one or the other"
		}
	}
	if len(t.set) == 0 {
		return "", "give relative, absolute, k_se, paired or threshold"
	}
	return "", ""
}

// Gate is a loaded gate file: its points built and pinned.
type Gate struct {
	File   string
	Spec   GateFile
	Points []PointSpec // one per scenario, ID = its name
	// Digests are each point's Digest (scenario after overlays, policy).
	Digests []string
	// Lanes are each point's lanes a check may name: AllLanes and the
	// scenario's models.
	Lanes [][]string
	root  *yaml.Node // the file's tree, for the lines of later refusals (CheckLimits)
}

// MaxGateRows bounds the rows a gate may judge (checks × scenarios ×
// lanes): a gate is read by a person.
const MaxGateRows = 100_000

// LoadGate reads and checks a gate file, every name resolved and every
// point built (its scenario read, variant and overlay merged) before
// anything runs.
func LoadGate(path string) (*Gate, error) {
	const what, need = "a gate", "baseline, scenarios and checks"
	g := &Gate{File: path}
	_, root, bad, err := decodeFile(path, what, need, &g.Spec)
	if err != nil {
		return nil, err
	}
	g.root = root
	if g.Spec.Baseline == "" {
		return nil, bad("baseline", "name the baseline file (e.g. results/baselines/NAME.json)")
	}
	if len(g.Spec.Scenarios) == 0 {
		return nil, bad("scenarios", "a gate needs at least one scenario")
	}
	if len(g.Spec.Checks) == 0 {
		return nil, bad("checks", "a gate needs at least one check")
	}
	multiplier := false
	for _, c := range g.Spec.Checks {
		multiplier = multiplier || NeedsBaseline(c.Metric)
	}
	cache := map[string]*scenario.Scenario{}
	names := map[string]int{}
	for i, s := range g.Spec.Scenarios {
		at := fmt.Sprintf("scenarios[%d]", i)
		if s.Name == "" {
			return nil, bad(at, "needs a name (checks name it)")
		}
		if j, ok := names[s.Name]; ok {
			return nil, bad(at+".name", "%q given twice (scenarios[%d])", s.Name, j)
		}
		names[s.Name] = i
		if err := checkPointRefs(path, root, at, s.Scenario, s.Policy, s.Variant, &s.Overlay); err != nil {
			return nil, err
		}
		if len(s.Seeds) == 0 {
			return nil, bad(at, "needs seeds (a list such as [1, 2, 3])")
		}
		if len(s.Seeds) > MaxSeeds {
			return nil, bad(at+".seeds", "at most %d seeds, got %d", MaxSeeds, len(s.Seeds))
		}
		first := map[uint64]int{}
		for j, seed := range s.Seeds {
			if k, ok := first[seed]; ok {
				return nil, bad(fmt.Sprintf("%s.seeds[%d]", at, j), "seed %d given twice (seeds[%d]): a repeated seed reruns the same run and shrinks the spread", seed, k)
			}
			first[seed] = j
		}
		p := PointSpec{ID: s.Name, Name: s.Name, File: path, Scenario: ResolveScenario(path, s.Scenario), Policy: s.Policy, Variant: s.Variant, Baseline: multiplier}
		if s.Overlay.Kind == yaml.MappingNode {
			p.Overlay = &s.Overlay
			p.Settings = flatten(path, at+".overlay.", "", &s.Overlay)
		}
		v, err := BuildPoint(p, cache)
		if err != nil {
			return nil, refError(path, root, at, err)
		}
		g.Points = append(g.Points, p)
		g.Digests = append(g.Digests, Digest(v))
		g.Lanes = append(g.Lanes, append([]string{AllLanes}, v.Scenario.Catalogue()...))
	}
	if err := g.checkChecks(root, names); err != nil {
		return nil, err
	}
	return g, nil
}

// checkChecks resolves every check's metric, scenarios and lanes, checks
// its tolerance and refuses a figure checked twice in the same direction.
func (g *Gate) checkChecks(root *yaml.Node, names map[string]int) error {
	path := g.File
	bad := func(at, format string, args ...any) error { return fieldErr(path, root, at, format, args...) }
	seen := map[string]int{}
	rows := 0
	for i, c := range g.Spec.Checks {
		at := fmt.Sprintf("checks[%d]", i)
		if c.Metric == "" {
			return bad(at, "needs a metric (have %s)", strings.Join(MetricNames, ", "))
		}
		if !slices.Contains(MetricNames, c.Metric) {
			return bad(at+".metric", "unknown %q (have %s)", c.Metric, strings.Join(MetricNames, ", "))
		}
		if (c.Floor == nil) == (c.Ceiling == nil) {
			return bad(at, "give exactly one of floor and ceiling")
		}
		tol, bound := c.Floor, "floor"
		if c.Ceiling != nil {
			tol, bound = c.Ceiling, "ceiling"
		}
		if k, msg := tol.check(); msg != "" {
			return bad(field.Join(at+"."+bound, k), "%s", msg)
		}
		if _, msg := checkThreshold(c); msg != "" {
			return bad(at+"."+bound+".threshold", "%s", msg)
		}
		scs := c.Scenarios
		for j, s := range scs {
			if _, ok := names[s]; !ok {
				return bad(fmt.Sprintf("%s.scenarios[%d]", at, j), "no scenario %q in this gate (have %s)", s, strings.Join(g.scenarioNames(), ", "))
			}
			if slices.Index(scs, s) < j {
				return bad(fmt.Sprintf("%s.scenarios[%d]", at, j), "%q given twice", s)
			}
		}
		if len(scs) == 0 {
			scs = g.scenarioNames()
		}
		lanes := c.Lanes
		if len(lanes) == 0 {
			lanes = []string{AllLanes}
		}
		for j, lane := range lanes {
			lat := fmt.Sprintf("%s.lanes[%d]", at, j)
			if len(c.Lanes) == 0 {
				lat = at
			}
			if slices.Index(lanes, lane) < j {
				return bad(lat, "%q given twice", lane)
			}
			if lane != AllLanes && (c.Metric == MetricJain || c.Metric == MetricOutage) {
				return bad(lat, "%s exists only on lane %q, not per model", c.Metric, AllLanes)
			}
			for _, s := range scs {
				if have := g.Lanes[names[s]]; !slices.Contains(have, lane) {
					return bad(lat, "scenario %q has no lane %q (have %s)", s, lane, strings.Join(have, ", "))
				}
				key := s + "\x00" + lane + "\x00" + c.Metric + "\x00" + bound
				if k, ok := seen[key]; ok {
					return bad(lat, "%s %s of %q on lane %q is already checked by checks[%d]", c.Metric, bound, s, lane, k)
				}
				seen[key] = i
				rows++
			}
		}
	}
	if rows > MaxGateRows {
		return bad("checks", "%d figures to judge: at most %d", rows, MaxGateRows)
	}
	return nil
}

func (g *Gate) scenarioNames() []string {
	var out []string
	for _, s := range g.Spec.Scenarios {
		out = append(out, s.Name)
	}
	return out
}

// checkPointRefs checks what a point of a gate, sweep or tune file names
// before it is built: a scenario (required: a missing one would run the
// default scenario), a policy from the registry, not both a policy and a
// variant (the variant names its own), an overlay that is a mapping.
func checkPointRefs(path string, root *yaml.Node, at, sc, policy, variant string, overlay *yaml.Node) error {
	bad := func(k, format string, args ...any) error {
		return fieldErr(path, root, field.Join(at, k), format, args...)
	}
	if sc == "" {
		return bad("scenario", "name a scenario file or an embedded scenario (have %s)", strings.Join(scenario.EmbeddedNames(), ", "))
	}
	if policy != "" && !scenario.IsPolicy(policy) {
		return bad("policy", "unknown policy %q (have %s)", policy, strings.Join(scenario.PolicyNames(), ", "))
	}
	if policy != "" && variant != "" {
		return bad("policy", "give a policy or a variant, not both (a variant names its own policy)")
	}
	if overlay.Kind != 0 && overlay.Kind != yaml.MappingNode && !(overlay.Kind == yaml.ScalarNode && overlay.Tag == "!!null") {
		return bad("overlay", "must be a mapping of scenario keys, got %s", kindName(overlay))
	}
	return nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}

// refError places an error from building a point: one already located in
// a file (the scenario's, or this file's overlay) is kept; a missing
// scenario or variant is named at the point's line.
func refError(path string, root *yaml.Node, at string, err error) error {
	var fe *field.Error
	if errors.As(err, &fe) && fe.File != "" {
		return err
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "no embedded scenario"), errors.Is(err, fs.ErrNotExist):
		return fieldErr(path, root, at+".scenario", "%s", msg)
	case strings.Contains(msg, "no variant"):
		return fieldErr(path, root, at+".variant", "%s", msg)
	}
	return fieldErr(path, root, at, "%s", msg)
}

// BaselinePath is the baseline file (relative to the gate file).
func (g *Gate) BaselinePath() string {
	if filepath.IsAbs(g.Spec.Baseline) {
		return g.Spec.Baseline
	}
	return filepath.Join(filepath.Dir(g.File), g.Spec.Baseline)
}
