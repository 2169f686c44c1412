package workloads

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/internal/yamltree"
	"go.yaml.in/yaml/v3"
)

// Dist describes a random quantity in a scenario. In YAML a bare number is a
// fixed value; otherwise a mapping names the distribution and its parameters:
//
//	fixed:       {dist: fixed, value: 3}
//	uniform:     {dist: uniform, min: 1, max: 8}
//	exponential: {dist: exponential, mean: 2.5}
//	lognormal:   {dist: lognormal, median: 400, sigma: 0.8}
//	pareto:      {dist: pareto, min: 10, max: 50000, alpha: 1.1}   (bounded)
//	empirical:   {dist: empirical, file: traces/azure_code.csv, format: azure, column: output}
//
// Optional min/max also clip uniform-free kinds (exponential, lognormal).
//
// empirical samples uniformly from one column of a public request trace
// (see OpenRequestTrace): column input (prompt tokens) or output (generated
// tokens); format azure, mooncake, or empty to infer it from the extension.
// A relative file is resolved against the working directory. The column is
// read once per (file, format, column) and kept in memory for the process;
// min and max do not apply to it.
type Dist struct {
	Kind   DistKind `yaml:"dist" json:"dist"`
	Value  float64  `yaml:"value,omitempty" json:"value,omitempty"`
	Min    float64  `yaml:"min,omitempty" json:"min,omitempty"`
	Max    float64  `yaml:"max,omitempty" json:"max,omitempty"`
	Mean   float64  `yaml:"mean,omitempty" json:"mean,omitempty"`
	Median float64  `yaml:"median,omitempty" json:"median,omitempty"`
	Sigma  float64  `yaml:"sigma,omitempty" json:"sigma,omitempty"`
	Alpha  float64  `yaml:"alpha,omitempty" json:"alpha,omitempty"`
	// File, Format and Column describe an empirical distribution.
	File   string        `yaml:"file,omitempty" json:"file,omitempty"`
	Format RequestFormat `yaml:"format,omitempty" json:"format,omitempty"`
	Column TokenColumn   `yaml:"column,omitempty" json:"column,omitempty"`

	s sampler // compiled by validation (compileAt, Fixed); zero before
}

// DistKind is a distribution's family (its dist: key).
type DistKind string

// The distribution families.
const (
	DistFixed       DistKind = "fixed"
	DistUniform     DistKind = "uniform"
	DistExponential DistKind = "exponential"
	DistLognormal   DistKind = "lognormal"
	DistPareto      DistKind = "pareto"
	DistEmpirical   DistKind = "empirical"
)

// DistKinds are the families a distribution may name.
var DistKinds = []DistKind{DistFixed, DistUniform, DistExponential, DistLognormal, DistPareto, DistEmpirical}

func (k DistKind) String() string { return string(k) }

// UnmarshalYAML refuses a family not in DistKinds where it is read.
func (k *DistKind) UnmarshalYAML(n *yaml.Node) (err error) {
	*k, err = yamltree.EnumOf(n, DistKinds)
	return err
}

// TokenColumn is which tokens of a request trace an empirical
// distribution draws: the prompt's or the output's.
type TokenColumn string

// The request-trace columns.
const (
	ColumnInput  TokenColumn = "input"
	ColumnOutput TokenColumn = "output"
)

// TokenColumns are the columns an empirical distribution may name.
var TokenColumns = []TokenColumn{ColumnInput, ColumnOutput}

func (c TokenColumn) String() string { return string(c) }

// UnmarshalYAML refuses a column other than input or output where it is
// read.
func (c *TokenColumn) UnmarshalYAML(n *yaml.Node) (err error) {
	*c, err = yamltree.EnumOf(n, TokenColumns)
	return err
}

// Fixed is a distribution that always yields v.
func Fixed(v float64) Dist { return Dist{Kind: "fixed", Value: v, s: fixedSampler(v)} }

// UnmarshalYAML accepts a bare number as a fixed value.
func (d *Dist) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind == yaml.ScalarNode {
		v, err := strconv.ParseFloat(node.Value, 64)
		if err != nil {
			return fmt.Errorf("line %d: want a number or a mapping with dist:, got %q", node.Line, node.Value)
		}
		*d = Fixed(v)
		return nil
	}
	// node.Decode would forget the strict-fields setting: check keys here.
	if node.Kind == yaml.MappingNode {
		for i := 0; i < len(node.Content); i += 2 {
			switch k := node.Content[i]; k.Value {
			case "dist", "value", "min", "max", "mean", "median", "sigma", "alpha", "file", "format", "column":
			default:
				return fmt.Errorf("line %d: field %s not found in a distribution (dist, value, min, max, mean, median, sigma, alpha, file, format, column)", k.Line, k.Value)
			}
		}
	}
	type plain Dist
	var p plain
	if err := node.Decode(&p); err != nil {
		return err
	}
	*d = Dist(p)
	return nil
}

// IsZero reports whether the distribution was left unset.
func (d Dist) IsZero() bool { return d == Dist{} }

// Equal reports whether two distributions have the same parameters, whether
// or not either has been compiled (go-cmp compares Dists with it).
func (d Dist) Equal(o Dist) bool {
	d.s, o.s = sampler{}, sampler{}
	return d == o
}

// Validate checks the parameters; path names the distribution in errors,
// which are *field.Error at the parameter at fault (path.mean, ...).
func (d Dist) Validate(path string) error {
	_, err := d.compile()
	return field.Under(path, err)
}

// compileAt validates d and keeps its sampler, so that drawing from it does
// not look at the kind again; path names d in errors, as for Validate.
func (d *Dist) compileAt(path string) error {
	s, err := d.compile()
	if err != nil {
		return field.Under(path, err)
	}
	d.s = s
	return nil
}

// Sample draws one value using src. A Dist that was not validated is
// compiled on the way (and panics if it is invalid).
func (d *Dist) Sample(src rand.Source) float64 {
	if p, ok := src.(*rand.PCG); ok {
		return d.draw(p)
	}
	s := &d.s
	if s.kind == notCompiled {
		c := d.mustCompile() // not kept: d may be shared between runs
		s = &c
	}
	return s.sample(src)
}

// draw is Sample from a PCG, the source every stream of the package is:
// a fixed value is read inline, the other kinds' draws (drawSlow) call src
// directly.
func (d *Dist) draw(src *rand.PCG) float64 {
	if d.s.kind == kindFixed {
		return d.s.a
	}
	return d.drawSlow(src)
}

// fixedWhole is a fixed value's token count (tokenDraw), worked out at
// compilation (a count's is countOf it); ok is false for the other kinds,
// which the agent draws (drawSlow) and converts where it takes them.
func (d *Dist) fixedWhole() (whole int, ok bool) { return d.s.whole, d.s.kind == kindFixed }

// fixedSpan is fixedWhole for a tool time (toolDuration).
func (d *Dist) fixedSpan() (span time.Duration, ok bool) { return d.s.span, d.s.kind == kindFixed }

// countOf is countDraw(v, limit) of a fixed value v whose tokenDraw is
// whole, for a whole-number limit of at most MaxTokens: rounding after
// bounding by limit is bounding the rounded value by it.
func countOf(whole, limit int) int { return max(min(whole, limit), 1) }

// MeanValue is the distribution's expected value (before clipping); NaN
// for an invalid distribution.
func (d Dist) MeanValue() float64 {
	if d.s.kind == notCompiled {
		s, err := d.compile()
		if err != nil {
			return math.NaN()
		}
		d.s = s
	}
	return d.s.mean()
}

func (d Dist) mustCompile() sampler {
	s, err := d.compile()
	if err != nil {
		panic("workloads: sampling an invalid distribution: " + err.Error())
	}
	return s
}

// atLeastOne rounds a drawn count to an integer >= 1.
func atLeastOne(v float64) int {
	n := int(math.Round(v))
	if n < 1 {
		return 1
	}
	return n
}

// empiricalColumn is one column of a request trace, loaded once.
type empiricalColumn struct {
	v    []float64
	mean float64
}

type empiricalKey struct {
	file   string
	format RequestFormat
	column TokenColumn
}

var empirical struct {
	sync.RWMutex
	cols map[empiricalKey]*empiricalColumn
}

// empiricalValues returns the cached column of an empirical distribution,
// reading the file the first time. Errors are not cached.
func empiricalValues(d Dist) (*empiricalColumn, error) {
	key := empiricalKey{d.File, d.Format, d.Column}
	empirical.RLock()
	c := empirical.cols[key]
	empirical.RUnlock()
	if c != nil {
		return c, nil
	}
	if d.Column != ColumnInput && d.Column != ColumnOutput {
		return nil, fmt.Errorf("column: want input or output, got %q", string(d.Column))
	}
	src, closer, err := OpenRequestTrace(d.File, d.Format, ReplayOptions{})
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	c = &empiricalColumn{}
	sum := 0.0
	for call, ok := src.Next(); ok; call, ok = src.Next() {
		v := call.Out
		if d.Column == ColumnInput {
			v = call.In
		}
		c.v = append(c.v, float64(v))
		sum += float64(v)
	}
	if err := src.Err(); err != nil {
		return nil, err
	}
	if len(c.v) == 0 {
		return nil, fmt.Errorf("%s: no records", d.File)
	}
	c.mean = sum / float64(len(c.v))
	empirical.Lock()
	if empirical.cols == nil {
		empirical.cols = make(map[empiricalKey]*empiricalColumn)
	}
	if prev := empirical.cols[key]; prev != nil {
		c = prev
	} else {
		empirical.cols[key] = c
	}
	empirical.Unlock()
	return c, nil
}
