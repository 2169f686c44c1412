package workloads

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"sync"

	"go.yaml.in/yaml/v3"
	"gonum.org/v1/gonum/stat/distuv"
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
	Kind   string  `yaml:"dist" json:"dist"`
	Value  float64 `yaml:"value,omitempty" json:"value,omitempty"`
	Min    float64 `yaml:"min,omitempty" json:"min,omitempty"`
	Max    float64 `yaml:"max,omitempty" json:"max,omitempty"`
	Mean   float64 `yaml:"mean,omitempty" json:"mean,omitempty"`
	Median float64 `yaml:"median,omitempty" json:"median,omitempty"`
	Sigma  float64 `yaml:"sigma,omitempty" json:"sigma,omitempty"`
	Alpha  float64 `yaml:"alpha,omitempty" json:"alpha,omitempty"`
	// File, Format and Column describe an empirical distribution.
	File   string `yaml:"file,omitempty" json:"file,omitempty"`
	Format string `yaml:"format,omitempty" json:"format,omitempty"`
	Column string `yaml:"column,omitempty" json:"column,omitempty"`
}

// Fixed is a distribution that always yields v.
func Fixed(v float64) Dist { return Dist{Kind: "fixed", Value: v} }

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

// Validate checks the parameters; field names the place in the scenario.
// nonNegative requires every value to be >= 0, minValue (if > 0) that the
// smallest possible value is at least that.
func (d Dist) Validate(field string) error {
	bad := func(sub, format string, args ...any) error {
		return fmt.Errorf("%s.%s: %s", field, sub, fmt.Sprintf(format, args...))
	}
	switch d.Kind {
	case "fixed":
		if d.Value < 0 || math.IsNaN(d.Value) {
			return bad("value", "must be >= 0, got %g", d.Value)
		}
	case "uniform":
		if d.Min < 0 || d.Max < d.Min {
			return bad("max", "need 0 <= min <= max, got min %g max %g", d.Min, d.Max)
		}
	case "exponential":
		if !(d.Mean > 0) {
			return bad("mean", "must be > 0, got %g", d.Mean)
		}
	case "lognormal":
		if !(d.Median > 0) {
			return bad("median", "must be > 0, got %g", d.Median)
		}
		if d.Sigma < 0 {
			return bad("sigma", "must be >= 0, got %g", d.Sigma)
		}
	case "pareto":
		if !(d.Min > 0) {
			return bad("min", "must be > 0, got %g", d.Min)
		}
		if !(d.Max > d.Min) {
			return bad("max", "must be > min (%g), got %g", d.Min, d.Max)
		}
		if !(d.Alpha > 0) {
			return bad("alpha", "must be > 0, got %g", d.Alpha)
		}
	case "empirical":
		if d.File == "" {
			return bad("file", "missing: an empirical distribution needs a request-trace file")
		}
		if d.Column != "input" && d.Column != "output" {
			return bad("column", "want input or output, got %q", d.Column)
		}
		if d.Min != 0 || d.Max != 0 {
			return bad("min", "min and max do not apply to an empirical distribution")
		}
		if _, err := requestFormat(d.File, d.Format); err != nil {
			return bad("format", "%v", err)
		}
		if _, err := empiricalValues(d); err != nil {
			return bad("file", "%v", err)
		}
	case "":
		return fmt.Errorf("%s.dist: missing (fixed, uniform, exponential, lognormal, pareto or empirical)", field)
	default:
		return bad("dist", "unknown distribution %q (want fixed, uniform, exponential, lognormal, pareto or empirical)", d.Kind)
	}
	if d.Kind != "uniform" && d.Kind != "pareto" && d.Max > 0 && d.Max < d.Min {
		return bad("max", "must be >= min (%g), got %g", d.Min, d.Max)
	}
	return nil
}

// Sample draws one value using src.
func (d Dist) Sample(src rand.Source) float64 {
	var v float64
	switch d.Kind {
	case "fixed":
		return d.Value
	case "uniform":
		return d.Min + (d.Max-d.Min)*unit(src)
	case "exponential":
		v = distuv.Exponential{Rate: 1 / d.Mean, Src: src}.Rand()
	case "lognormal":
		v = distuv.LogNormal{Mu: math.Log(d.Median), Sigma: d.Sigma, Src: src}.Rand()
	case "pareto":
		// Bounded Pareto by inverse CDF on [min, max].
		u := unit(src)
		ratio := math.Pow(d.Min/d.Max, d.Alpha)
		return d.Min / math.Pow(1-u*(1-ratio), 1/d.Alpha)
	case "empirical":
		vals, err := empiricalValues(d)
		if err != nil {
			panic("workloads: sampling an unvalidated empirical distribution: " + err.Error())
		}
		return vals.v[uint64n(src, uint64(len(vals.v)))]
	default:
		panic("workloads: sampling an unvalidated distribution " + strconv.Quote(d.Kind))
	}
	if v < d.Min {
		v = d.Min
	}
	if d.Max > 0 && v > d.Max {
		v = d.Max
	}
	return v
}

// Mean is the distribution's expected value (before clipping).
func (d Dist) MeanValue() float64 {
	switch d.Kind {
	case "fixed":
		return d.Value
	case "uniform":
		return (d.Min + d.Max) / 2
	case "exponential":
		return d.Mean
	case "lognormal":
		return d.Median * math.Exp(d.Sigma*d.Sigma/2)
	case "pareto":
		a, l, h := d.Alpha, d.Min, d.Max
		if a == 1 {
			return h * l / (h - l) * math.Log(h/l)
		}
		return math.Pow(l, a) / (1 - math.Pow(l/h, a)) * a / (a - 1) * (1/math.Pow(l, a-1) - 1/math.Pow(h, a-1))
	case "empirical":
		if vals, err := empiricalValues(d); err == nil {
			return vals.mean
		}
	}
	return math.NaN()
}

// unit is a uniform draw in [0, 1) from src.
func unit(src rand.Source) float64 {
	return float64(src.Uint64()<<11>>11) / (1 << 53)
}

// atLeastOne rounds a drawn count to an integer >= 1.
func atLeastOne(v float64) int {
	n := int(math.Round(v))
	if n < 1 {
		return 1
	}
	return n
}

// uint64n is a uniform draw in [0, n) from src (Lemire's method, unbiased).
func uint64n(src rand.Source, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

// empiricalColumn is one column of a request trace, loaded once.
type empiricalColumn struct {
	v    []float64
	mean float64
}

type empiricalKey struct{ file, format, column string }

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
	if d.Column != "input" && d.Column != "output" {
		return nil, fmt.Errorf("column: want input or output, got %q", d.Column)
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
		if d.Column == "input" {
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
