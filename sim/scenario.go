package sim

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"github.com/evalsched/lab/internal/field"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/workloads"
	"go.yaml.in/yaml/v3"
)

// Scenario is everything a run needs besides the policy name and the seed.
// Zero values of optional fields mean "use the default" (see Defaults).
type Scenario struct {
	Name        string        `yaml:"name" json:"name"`
	Description string        `yaml:"description" json:"description,omitempty"`
	Duration    time.Duration `yaml:"duration" json:"duration"`
	// Warmup is excluded from the measurement window.
	Warmup time.Duration `yaml:"warmup" json:"warmup"`
	// SeriesInterval is the period of the time-series samples.
	SeriesInterval time.Duration `yaml:"series_interval" json:"series_interval"`
	// FairnessWindow is the window of the Jain's-index fairness metric.
	FairnessWindow time.Duration `yaml:"fairness_window" json:"fairness_window"`

	Containers    ContainerConfig `yaml:"containers" json:"containers"`
	Gateway       GatewayConfig   `yaml:"gateway" json:"gateway"`
	Organisations []OrgConfig     `yaml:"organisations" json:"organisations"`
	// ModelDefaults applies to every model and model group before its own keys.
	ModelDefaults ModelConfig        `yaml:"model_defaults" json:"model_defaults"`
	Models        []ModelConfig      `yaml:"models" json:"models"`
	ModelGroups   []ModelGroup       `yaml:"model_groups" json:"model_groups"`
	Events        []CapacityEvent    `yaml:"events" json:"events"`
	Workload      workloads.Config   `yaml:"workload" json:"workload"`
	Production    []ProductionConfig `yaml:"production" json:"production,omitempty"`
	Policies      PolicyConfigs      `yaml:"policies" json:"policies"`
	catalogue     []ModelConfig      // explicit models then groups, defaults applied
	source        []string           // scenario path of each catalogue entry
	file          string             // where it was loaded from, for messages
	root          *yaml.Node         // parsed document, for line numbers
}

// ContainerConfig is the container pool.
type ContainerConfig struct {
	Capacity     int           `yaml:"capacity" json:"capacity"`
	Startup      time.Duration `yaml:"startup" json:"startup"`
	PricePerHour float64       `yaml:"price_per_hour" json:"price_per_hour"`
}

// GatewayConfig is the LLM gateway in front of the providers.
type GatewayConfig struct {
	// DepthDelay is how stale the depth reading a policy sees is.
	DepthDelay time.Duration `yaml:"depth_delay" json:"depth_delay"`
	// DepthSample is how often the delayed depth is sampled (default 1s).
	DepthSample time.Duration `yaml:"depth_sample" json:"depth_sample"`
	Retry       RetryConfig   `yaml:"retry" json:"retry"`
}

// RetryConfig is the gateway's 429 backoff: delay = min(max, base ×
// multiplier^(attempt-1)), reduced by up to jitter × itself at random; with
// honour_retry_after, never shorter than the provider's retry-after.
type RetryConfig struct {
	Base             time.Duration `yaml:"base" json:"base"`
	Max              time.Duration `yaml:"max" json:"max"`
	Multiplier       float64       `yaml:"multiplier" json:"multiplier"`
	Jitter           float64       `yaml:"jitter" json:"jitter"`
	HonourRetryAfter *bool         `yaml:"honour_retry_after" json:"honour_retry_after"`
	// MaxAttempts bounds the tries of one call (0 = unlimited); a call that
	// exhausts them fails and the job moves on.
	MaxAttempts int `yaml:"max_attempts" json:"max_attempts"`
}

// OrgConfig is a provider organisation's quotas, on rolling windows; 0 = none.
type OrgConfig struct {
	Name string  `yaml:"name" json:"name"`
	RPM  float64 `yaml:"rpm" json:"rpm"`
	TPM  float64 `yaml:"tpm" json:"tpm"`
	RPD  float64 `yaml:"rpd" json:"rpd"`
	TPD  float64 `yaml:"tpd" json:"tpd"`
}

// ModelConfig is one model deployment and its gateway lane.
type ModelConfig struct {
	Name string `yaml:"name" json:"name"`
	Org  string `yaml:"org" json:"org,omitempty"`
	// Streams is the provider's capacity in concurrent calls.
	Streams int `yaml:"streams" json:"streams"`
	// InflightLimit is the gateway's hand-set in-flight limit.
	InflightLimit int           `yaml:"inflight_limit" json:"inflight_limit"`
	TTFT          time.Duration `yaml:"ttft" json:"ttft"`
	// DecodeRate is output tokens per second per stream.
	DecodeRate float64        `yaml:"decode_rate" json:"decode_rate"`
	Jitter     JitterConfig   `yaml:"jitter" json:"jitter"`
	Slowdown   SlowdownConfig `yaml:"slowdown" json:"slowdown"`
}

// JitterConfig multiplies each call's latency by a random factor of mean 1:
// none, exponential (memoryless service) or lognormal with the given CV.
type JitterConfig struct {
	Dist string  `yaml:"dist" json:"dist"`
	CV   float64 `yaml:"cv" json:"cv"`
}

// SlowdownConfig stretches latency near capacity: at utilisation u above
// Knee, latency × (1 + (Max-1) × (u-Knee)/(1-Knee)); Max <= 1 disables it.
type SlowdownConfig struct {
	Knee float64 `yaml:"knee" json:"knee"`
	Max  float64 `yaml:"max" json:"max"`
}

// ModelGroup generates Count models named Prefix000, Prefix001, ...
type ModelGroup struct {
	Prefix      string `yaml:"prefix" json:"prefix"`
	Count       int    `yaml:"count" json:"count"`
	ModelConfig `yaml:",inline" json:",inline"`
}

// CapacityEvent changes a model's provider at a time: Capacity scales its
// streams (0 = outage), Latency scales its call latency. Both are absolute
// factors against the configured deployment (1, 1 = recovery).
type CapacityEvent struct {
	At       time.Duration `yaml:"at" json:"at"`
	Model    string        `yaml:"model" json:"model"`
	Capacity *float64      `yaml:"capacity" json:"capacity"`
	Latency  *float64      `yaml:"latency" json:"latency"`
	Label    string        `yaml:"label" json:"label,omitempty"`
}

// PolicyConfigs holds each policy's settings.
type PolicyConfigs struct {
	FixedLane policies.FixedLaneConfig `yaml:"fixed_lane" json:"fixed_lane"`
	Scheduler policies.SchedulerConfig `yaml:"scheduler" json:"scheduler"`
}

//go:embed scenarios/*.yaml
var embedded embed.FS

// EmbeddedNames lists the scenarios built into the binary.
func EmbeddedNames() []string {
	entries, _ := embedded.ReadDir("scenarios")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	return names
}

// DefaultScenario is the name of the embedded scenario used when none is given.
const DefaultScenario = "default"

// LoadScenario reads a scenario from a file, or an embedded one by name
// ("embedded:NAME" or a bare name that is not a file).
func LoadScenario(path string) (*Scenario, error) {
	name := strings.TrimPrefix(path, "embedded:")
	if path == "" {
		name = DefaultScenario
	}
	if _, err := os.Stat(path); path == "" || strings.HasPrefix(path, "embedded:") || (err != nil && !strings.ContainsAny(path, "/.")) {
		data, err := embedded.ReadFile("scenarios/" + name + ".yaml")
		if err != nil {
			return nil, fmt.Errorf("no embedded scenario %q (have %s)", name, strings.Join(EmbeddedNames(), ", "))
		}
		return ParseScenario("embedded:"+name, data)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseScenario(path, data)
}

// ParseScenario decodes and validates a scenario. Unknown keys, wrong types
// and impossible values are errors of the form FILE:LINE: FIELD: problem.
func ParseScenario(file string, data []byte) (*Scenario, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", file, unwrapYAML(err))
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: empty scenario", file)
	}
	s := &Scenario{file: file, root: &root}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(s); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", file, unwrapYAML(err))
	}
	if err := s.build(); err != nil {
		return nil, s.errorAt(err)
	}
	return s, nil
}

// unwrapYAML turns yaml's "yaml: unmarshal errors:\n  line 3: ..." into
// "line 3: ...; line 5: ...".
func unwrapYAML(err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return errors.New(strings.Join(te.Errors, "; "))
	}
	return errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
}

// pathError is a validation error at a field path such as models[3].decode_rate.
type pathError struct {
	path string
	msg  string
}

func (e *pathError) Error() string { return e.path + ": " + e.msg }

func fieldErr(path, format string, args ...any) error {
	return &pathError{path: path, msg: fmt.Sprintf(format, args...)}
}

// errorAt prefixes an error with the file and the line of its field.
func (s *Scenario) errorAt(err error) error {
	path := err.Error()
	var pe *pathError
	if errors.As(err, &pe) {
		path = pe.path
	} else if i := strings.Index(path, ": "); i > 0 {
		path = path[:i]
	}
	if line := lineOf(s.root, path); line > 0 {
		return fmt.Errorf("%s:%d: %w", s.file, line, err)
	}
	return fmt.Errorf("%s: %w", s.file, err)
}

// lineOf finds the line of a field path in the YAML tree; map keys may
// contain dots (model names such as gpt-5.5), so the longest key that matches
// wins. It returns the deepest line it could reach, 0 for none.
func lineOf(root *yaml.Node, path string) int {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := 0
	for path != "" {
		path = strings.TrimPrefix(path, ".")
		if strings.HasPrefix(path, "[") {
			end := strings.Index(path, "]")
			i, err := strconv.Atoi(path[1:max(end, 1)])
			if end < 0 || err != nil || n.Kind != yaml.SequenceNode || i >= len(n.Content) {
				return line
			}
			n, path = n.Content[i], path[end+1:]
			line = n.Line
			continue
		}
		if n.Kind != yaml.MappingNode {
			return line
		}
		best := -1
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if strings.HasPrefix(path, k) && (len(path) == len(k) || path[len(k)] == '.' || path[len(k)] == '[') {
				if best < 0 || len(k) > len(n.Content[best].Value) {
					best = i
				}
			}
		}
		if best < 0 {
			return line
		}
		line = n.Content[best].Line
		path = path[len(n.Content[best].Value):]
		n = n.Content[best+1]
	}
	return line
}

// Catalogue is the list of model names, explicit models first.
func (s *Scenario) Catalogue() []string {
	names := make([]string, len(s.catalogue))
	for i, m := range s.catalogue {
		names[i] = m.Name
	}
	return names
}

// ModelConfigs is every model with defaults applied, in catalogue order.
func (s *Scenario) ModelConfigs() []ModelConfig { return s.catalogue }

// File is where the scenario came from.
func (s *Scenario) File() string { return s.file }

// build applies defaults, expands groups and validates.
func (s *Scenario) build() error {
	if s.Duration <= 0 {
		return fieldErr("duration", "must be > 0, got %v", s.Duration)
	}
	if s.Warmup < 0 || s.Warmup >= s.Duration {
		return fieldErr("warmup", "must be in [0, duration), got %v", s.Warmup)
	}
	if s.SeriesInterval == 0 {
		s.SeriesInterval = 10 * time.Second
	}
	if s.FairnessWindow == 0 {
		s.FairnessWindow = 10 * time.Minute
	}
	if s.FairnessWindow < s.SeriesInterval {
		return fieldErr("fairness_window", "must be >= series_interval (%v), got %v", s.SeriesInterval, s.FairnessWindow)
	}
	if s.SeriesInterval < 0 {
		return fieldErr("series_interval", "must be > 0, got %v", s.SeriesInterval)
	}
	if s.Containers.Capacity <= 0 {
		return fieldErr("containers.capacity", "must be > 0, got %d", s.Containers.Capacity)
	}
	if s.Containers.Startup < 0 {
		return fieldErr("containers.startup", "must be >= 0, got %v", s.Containers.Startup)
	}
	if s.Containers.PricePerHour < 0 {
		return fieldErr("containers.price_per_hour", "must be >= 0, got %g", s.Containers.PricePerHour)
	}
	if err := s.Gateway.applyDefaults(); err != nil {
		return err
	}
	orgs := map[string]bool{}
	for i, o := range s.Organisations {
		p := fmt.Sprintf("organisations[%d]", i)
		if o.Name == "" {
			return fieldErr(p+".name", "missing")
		}
		if orgs[o.Name] {
			return fieldErr(p+".name", "duplicate organisation %q", o.Name)
		}
		orgs[o.Name] = true
		for _, q := range []struct {
			k string
			v float64
		}{{"rpm", o.RPM}, {"tpm", o.TPM}, {"rpd", o.RPD}, {"tpd", o.TPD}} {
			if q.v < 0 || math.IsNaN(q.v) {
				return fieldErr(p+"."+q.k, "must be >= 0 (0 = no limit), got %g", q.v)
			}
		}
	}
	// Models: defaults first, then each model's own keys (decoded again onto
	// a copy of the defaults so unset keys inherit).
	s.catalogue, s.source = nil, nil
	seen := map[string]string{}
	add := func(m ModelConfig, src string) error {
		if m.Name == "" {
			return fieldErr(src+".name", "missing")
		}
		if prev, ok := seen[m.Name]; ok {
			return fieldErr(src+".name", "duplicate model %q (also %s)", m.Name, prev)
		}
		seen[m.Name] = src
		s.catalogue = append(s.catalogue, m)
		s.source = append(s.source, src)
		return nil
	}
	modelNodes := s.section("models")
	for i := range s.Models {
		m := s.ModelDefaults
		if modelNodes != nil && i < len(modelNodes.Content) {
			if err := modelNodes.Content[i].Decode(&m); err != nil {
				return fieldErr(fmt.Sprintf("models[%d]", i), "%v", unwrapYAML(err))
			}
		}
		if err := add(m, fmt.Sprintf("models[%d]", i)); err != nil {
			return err
		}
	}
	groupNodes := s.section("model_groups")
	for gi, g := range s.ModelGroups {
		p := fmt.Sprintf("model_groups[%d]", gi)
		if g.Count < 1 {
			return fieldErr(p+".count", "must be >= 1, got %d", g.Count)
		}
		if g.Prefix == "" {
			return fieldErr(p+".prefix", "missing")
		}
		grp := ModelGroup{ModelConfig: s.ModelDefaults}
		if groupNodes != nil && gi < len(groupNodes.Content) {
			if err := groupNodes.Content[gi].Decode(&grp); err != nil {
				return fieldErr(p, "%v", unwrapYAML(err))
			}
		}
		width := len(strconv.Itoa(g.Count - 1))
		for k := 0; k < g.Count; k++ {
			m := grp.ModelConfig
			m.Name = fmt.Sprintf("%s%0*d", g.Prefix, width, k)
			if err := add(m, p); err != nil {
				return err
			}
		}
	}
	if len(s.catalogue) == 0 {
		return fieldErr("models", "no models: list models or model_groups")
	}
	for i := range s.catalogue {
		if err := s.catalogue[i].validate(s.source[i], orgs); err != nil {
			return err
		}
	}
	names := s.Catalogue()
	for i, e := range s.Events {
		p := fmt.Sprintf("events[%d]", i)
		if _, ok := seen[e.Model]; !ok {
			return fieldErr(p+".model", "unknown model %q", e.Model)
		}
		if e.At < 0 || e.At > s.Duration {
			return fieldErr(p+".at", "must be within [0, duration], got %v", e.At)
		}
		if e.Capacity == nil && e.Latency == nil {
			return fieldErr(p, "sets neither capacity nor latency")
		}
		if e.Capacity != nil && !(*e.Capacity >= 0) {
			return fieldErr(p+".capacity", "must be >= 0, got %g", *e.Capacity)
		}
		if e.Latency != nil && !(*e.Latency > 0) {
			return fieldErr(p+".latency", "must be > 0, got %g", *e.Latency)
		}
		if i > 0 && e.At < s.Events[i-1].At {
			return fieldErr(p+".at", "events must be in time order (%v after %v)", e.At, s.Events[i-1].At)
		}
	}
	if err := s.validateProduction(seen); err != nil {
		return err
	}
	if !isEmbedded(s.file) {
		s.Workload.ResolvePaths(filepath.Dir(s.file))
	}
	if err := s.Workload.Validate(names); err != nil {
		return prefixed("workload", err)
	}
	if s.Policies.FixedLane.GlobalCap == 0 {
		s.Policies.FixedLane.GlobalCap = s.Containers.Capacity
	}
	if err := s.Policies.FixedLane.Validate(names); err != nil {
		return prefixed("policies.fixed_lane", err)
	}
	if s.Policies.FixedLane.GlobalCap > s.Containers.Capacity {
		return fieldErr("policies.fixed_lane.global_cap", "%d is above containers.capacity %d", s.Policies.FixedLane.GlobalCap, s.Containers.Capacity)
	}
	if err := s.validateScheduler(names); err != nil {
		return prefixed("policies.scheduler", err)
	}
	return nil
}

func prefixed(prefix string, err error) error {
	var fe *field.Error
	if errors.As(err, &fe) {
		return &pathError{path: prefix + "." + fe.Path, msg: fe.Msg}
	}
	msg := err.Error()
	if i := strings.Index(msg, ": "); i > 0 {
		return &pathError{path: prefix + "." + msg[:i], msg: msg[i+2:]}
	}
	return &pathError{path: prefix, msg: msg}
}

// section returns the sequence node under a top-level key, or nil.
func (s *Scenario) section(key string) *yaml.Node {
	n := s.root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func (g *GatewayConfig) applyDefaults() error {
	if g.DepthDelay < 0 {
		return fieldErr("gateway.depth_delay", "must be >= 0, got %v", g.DepthDelay)
	}
	if g.DepthSample == 0 {
		g.DepthSample = time.Second
	}
	if g.DepthSample < 0 {
		return fieldErr("gateway.depth_sample", "must be > 0, got %v", g.DepthSample)
	}
	r := &g.Retry
	if r.Base == 0 {
		r.Base = time.Second
	}
	if r.Max == 0 {
		r.Max = time.Minute
	}
	if r.Multiplier == 0 {
		r.Multiplier = 2
	}
	if r.HonourRetryAfter == nil {
		t := true
		r.HonourRetryAfter = &t
	}
	switch {
	case r.Base < 0:
		return fieldErr("gateway.retry.base", "must be > 0, got %v", r.Base)
	case r.Max < r.Base:
		return fieldErr("gateway.retry.max", "must be >= base (%v), got %v", r.Base, r.Max)
	case r.Multiplier < 1:
		return fieldErr("gateway.retry.multiplier", "must be >= 1, got %g", r.Multiplier)
	case !(r.Jitter >= 0 && r.Jitter <= 1):
		return fieldErr("gateway.retry.jitter", "must be in [0, 1], got %g", r.Jitter)
	case r.MaxAttempts < 0:
		return fieldErr("gateway.retry.max_attempts", "must be >= 0 (0 = unlimited), got %d", r.MaxAttempts)
	}
	return nil
}

func (m *ModelConfig) validate(p string, orgs map[string]bool) error {
	if m.Org != "" && !orgs[m.Org] {
		return fieldErr(p+".org", "unknown organisation %q", m.Org)
	}
	if m.Streams <= 0 {
		return fieldErr(p+".streams", "must be > 0, got %d", m.Streams)
	}
	if m.InflightLimit == 0 {
		m.InflightLimit = m.Streams
	}
	if m.InflightLimit < 0 {
		return fieldErr(p+".inflight_limit", "must be > 0, got %d", m.InflightLimit)
	}
	if m.TTFT < 0 {
		return fieldErr(p+".ttft", "must be >= 0, got %v", m.TTFT)
	}
	if !(m.DecodeRate > 0) {
		return fieldErr(p+".decode_rate", "must be > 0 tokens/s, got %g", m.DecodeRate)
	}
	switch m.Jitter.Dist {
	case "", "none", "exponential":
	case "lognormal":
		if !(m.Jitter.CV > 0) {
			return fieldErr(p+".jitter.cv", "must be > 0 for lognormal, got %g", m.Jitter.CV)
		}
	default:
		return fieldErr(p+".jitter.dist", "unknown %q (want none, exponential or lognormal)", m.Jitter.Dist)
	}
	if m.Slowdown.Max > 1 && !(m.Slowdown.Knee >= 0 && m.Slowdown.Knee < 1) {
		return fieldErr(p+".slowdown.knee", "must be in [0, 1), got %g", m.Slowdown.Knee)
	}
	if m.Slowdown.Max < 0 {
		return fieldErr(p+".slowdown.max", "must be >= 0, got %g", m.Slowdown.Max)
	}
	return nil
}

// EmbeddedYAML returns the text of an embedded scenario.
func EmbeddedYAML(name string) ([]byte, error) {
	data, err := embedded.ReadFile("scenarios/" + name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("no embedded scenario %q (have %s)", name, strings.Join(EmbeddedNames(), ", "))
	}
	return data, nil
}
