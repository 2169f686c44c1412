package scenario

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"time"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/internal/yamltree"
	"github.com/evalsched/lab/workloads"
	"go.yaml.in/yaml/v3"
)

// A decoded scenario is built in three passes: defaults fill what was left
// out, validation checks every field in document order (expanding the model
// catalogue on the way), and loading resolves relative paths and opens the
// files a run will read. Each problem is a *field.Error at a field path;
// locate adds the file and the line.

// build applies defaults, expands groups, validates and loads.
func (s *Scenario) build() error {
	if err := s.checkWritten(); err != nil {
		return err
	}
	s.applyDefaults()
	if !isEmbedded(s.file) {
		s.resolvePaths(filepath.Dir(s.file))
	}
	for _, step := range []func() error{
		s.validateRun, s.Gateway.validate, s.validateOrganisations, s.validateSizes, s.buildCatalogue,
		s.validateModels, s.validateQuotaKeys, s.validateEvents, s.validateProduction, s.loadProduction,
		s.validateWorkload, s.checkBatchClasses, s.validatePolicies, s.validateLimits,
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// applyDefaults fills every optional field left out (model keys are filled
// as the catalogue is built).
func (s *Scenario) applyDefaults() {
	if s.SeriesInterval == 0 {
		s.SeriesInterval = 10 * time.Second
	}
	if s.FairnessWindow == 0 {
		s.FairnessWindow = 10 * time.Minute
	}
	s.Gateway.applyDefaults()
	for i := range s.Keys {
		s.Keys[i].applyPreset()
	}
	for i := range s.Organisations {
		s.Organisations[i].applyPreset()
		if b := s.Organisations[i].Batch; b != nil {
			b.applyDefaults()
		}
	}
	for i := range s.Production {
		p := &s.Production[i]
		if p.Name == "" {
			p.Name = fmt.Sprintf("production-%d", i)
		}
		if p.MaxAttempts == 0 {
			p.MaxAttempts = 3
		}
	}
	if s.Policies.FixedLane.GlobalCap == 0 {
		s.Policies.FixedLane.GlobalCap = s.Containers.Capacity
	}
	s.Policies.Scheduler = s.Policies.Scheduler.WithDefaults()
}

func (g *GatewayConfig) applyDefaults() {
	if g.DepthSample == 0 {
		g.DepthSample = time.Second
	}
	g.Retry.applyDefaults()
}

func (r *RetryConfig) applyDefaults() {
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
}

func (m *ModelConfig) applyDefaults() {
	if m.InflightLimit == 0 {
		m.InflightLimit = m.Streams
	}
}

// resolvePaths makes the relative paths of a scenario file relative to it.
func (s *Scenario) resolvePaths(dir string) {
	for i := range s.Production {
		if p := &s.Production[i]; p.Trace != "" && !filepath.IsAbs(p.Trace) && !workloads.IsEmbeddedTrace(p.Trace) {
			p.Trace = filepath.Join(dir, p.Trace)
		}
	}
	s.Workload.ResolvePaths(dir)
}

func isEmbedded(file string) bool { return len(file) > 9 && file[:9] == "embedded:" }

func (s *Scenario) validateRun() error {
	switch {
	case s.Duration <= 0:
		return field.Errorf("duration", "must be > 0, got %v", s.Duration)
	case s.Warmup < 0 || s.Warmup >= s.Duration:
		return field.Errorf("warmup", "must be in [0, duration), got %v", s.Warmup)
	case s.FairnessWindow < s.SeriesInterval:
		return field.Errorf("fairness_window", "must be >= series_interval (%v), got %v", s.SeriesInterval, s.FairnessWindow)
	case s.SeriesInterval < 0:
		return field.Errorf("series_interval", "must be > 0, got %v", s.SeriesInterval)
	case s.Containers.Capacity <= 0:
		return field.Errorf("containers.capacity", "must be > 0, got %d", s.Containers.Capacity)
	case s.Containers.Startup < 0:
		return field.Errorf("containers.startup", "must be >= 0, got %v", s.Containers.Startup)
	case s.Containers.PricePerHour < 0:
		return field.Errorf("containers.price_per_hour", "must be >= 0, got %g", s.Containers.PricePerHour)
	}
	return nil
}

func (g *GatewayConfig) validate() error {
	if ia := g.InspectAdaptive; ia != nil {
		if g.AdaptiveLimit.Enabled {
			return field.Errorf("gateway.inspect_adaptive", "set with gateway.adaptive_limit: one loop moves the limits")
		}
		ia.withDefaults()
		if err := ia.check(); err != nil {
			return err
		}
	}
	if g.AdaptiveLimit.Enabled {
		g.AdaptiveLimit.withDefaults()
		if err := g.AdaptiveLimit.check(); err != nil {
			return err
		}
	}
	if err := checkStaleSpells(g.Stale); err != nil {
		return err
	}
	switch {
	case g.DepthDelay < 0:
		return field.Errorf("gateway.depth_delay", "must be >= 0, got %v", g.DepthDelay)
	case g.DepthSignal != "" && g.DepthSignal != DepthHeld && g.DepthSignal != DepthQueued:
		return field.Errorf("gateway.depth_signal", "unknown %q (want held or queued)", g.DepthSignal)
	case g.DepthSample < 0:
		return field.Errorf("gateway.depth_sample", "must be > 0, got %v", g.DepthSample)
	}
	return g.Retry.validate("gateway.retry")
}

func (r *RetryConfig) validate(p string) error {
	switch {
	case r.Base < 0:
		return field.Errorf(p+".base", "must be > 0, got %v", r.Base)
	case r.Max < r.Base:
		return field.Errorf(p+".max", "must be >= base (%v), got %v", r.Base, r.Max)
	case r.Multiplier < 1:
		return field.Errorf(p+".multiplier", "must be >= 1, got %g", r.Multiplier)
	case !(r.Jitter >= 0 && r.Jitter <= 1):
		return field.Errorf(p+".jitter", "must be in [0, 1], got %g", r.Jitter)
	case r.MaxAttempts < 0:
		return field.Errorf(p+".max_attempts", "must be >= 0 (0 = unlimited), got %d", r.MaxAttempts)
	case r.JitterAdd < 0:
		return field.Errorf(p+".jitter_add", "must be >= 0, got %v", r.JitterAdd)
	}
	return nil
}

func (s *Scenario) validateOrganisations() error {
	seen := map[string]bool{}
	for i, o := range s.Organisations {
		p := fmt.Sprintf("organisations[%d]", i)
		if o.Name == "" {
			return field.Errorf(p+".name", "missing")
		}
		if seen[o.Name] {
			return field.Errorf(p+".name", "duplicate organisation %q", o.Name)
		}
		seen[o.Name] = true
		if err := checkLimits(p, o.Limits()); err != nil {
			return err
		}
		if err := o.validateMeters(p); err != nil {
			return err
		}
		if b := o.Batch; b != nil {
			if err := b.validate(p + ".batch"); err != nil {
				return err
			}
		}
	}
	return nil
}

// buildCatalogue expands models and model groups into the catalogue: the
// defaults first, then each entry's own keys (decoded again onto a copy of
// the defaults so unset keys inherit).
func (s *Scenario) buildCatalogue() error {
	s.catalogue, s.source = nil, nil
	seen := map[string]string{}
	add := func(m ModelConfig, src string) error {
		if m.Name == "" {
			return field.Errorf(src+".name", "missing")
		}
		if prev, ok := seen[m.Name]; ok {
			return field.Errorf(src+".name", "duplicate model %q (also %s)", m.Name, prev)
		}
		seen[m.Name] = src
		m.applyDefaults()
		s.catalogue = append(s.catalogue, m)
		s.source = append(s.source, src)
		return nil
	}
	modelNodes := s.section("models")
	for i := range s.Models {
		p, m := fmt.Sprintf("models[%d]", i), s.ModelDefaults
		if err := decodeOnto(modelNodes, i, p, &m); err != nil {
			return err
		}
		if err := add(m, p); err != nil {
			return err
		}
	}
	groupNodes := s.section("model_groups")
	for gi, g := range s.ModelGroups {
		p := fmt.Sprintf("model_groups[%d]", gi)
		if g.Count < 1 {
			return field.Errorf(p+".count", "must be >= 1, got %d", g.Count)
		}
		if g.Prefix == "" {
			return field.Errorf(p+".prefix", "missing")
		}
		grp := ModelGroup{ModelConfig: s.ModelDefaults}
		if err := decodeOnto(groupNodes, gi, p, &grp); err != nil {
			return err
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
		return field.Errorf("models", "no models: list models or model_groups")
	}
	return nil
}

// decodeOnto decodes the i-th entry of a sequence node onto v.
func decodeOnto(seq *yaml.Node, i int, path string, v any) error {
	if seq == nil || i >= len(seq.Content) {
		return nil
	}
	if err := seq.Content[i].Decode(v); err != nil {
		return field.Under(path, yamltree.Err(nil, reflect.TypeOf(v), err))
	}
	return nil
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

func (s *Scenario) validateModels() error {
	orgs := map[string]bool{}
	for _, o := range s.Organisations {
		orgs[o.Name] = true
	}
	for i := range s.catalogue {
		if err := s.catalogue[i].validate(s.source[i], orgs); err != nil {
			return err
		}
	}
	return nil
}

func (m *ModelConfig) validate(p string, orgs map[string]bool) error {
	switch {
	case m.Org != "" && !orgs[m.Org]:
		return field.Errorf(p+".org", "unknown organisation %q", m.Org)
	case m.Streams <= 0:
		return field.Errorf(p+".streams", "must be > 0, got %d", m.Streams)
	case m.InflightLimit < 0:
		return field.Errorf(p+".inflight_limit", "must be > 0, got %d", m.InflightLimit)
	case m.TTFT < 0:
		return field.Errorf(p+".ttft", "must be >= 0, got %v", m.TTFT)
	case !(m.DecodeRate > 0):
		return field.Errorf(p+".decode_rate", "must be > 0 tokens/s, got %g", m.DecodeRate)
	}
	switch m.Jitter.Dist {
	case "", JitterNone, JitterExponential:
	case JitterLognormal:
		if !(m.Jitter.CV > 0) {
			return field.Errorf(p+".jitter.cv", "must be > 0 for lognormal, got %g", m.Jitter.CV)
		}
	default:
		return field.Errorf(p+".jitter.dist", "unknown %q (want none, exponential or lognormal)", m.Jitter.Dist)
	}
	if m.Slowdown.Max > 1 && !(m.Slowdown.Knee >= 0 && m.Slowdown.Knee < 1) {
		return field.Errorf(p+".slowdown.knee", "must be in [0, 1), got %g", m.Slowdown.Knee)
	}
	if m.Slowdown.Max < 0 {
		return field.Errorf(p+".slowdown.max", "must be >= 0, got %g", m.Slowdown.Max)
	}
	return m.Prices.validate(p + ".prices")
}

func (s *Scenario) validateEvents() error {
	for i, e := range s.Events {
		p := fmt.Sprintf("events[%d]", i)
		switch {
		case !s.hasModel(e.Model):
			return field.Errorf(p+".model", "unknown model %q", e.Model)
		case e.At < 0 || e.At > s.Duration:
			return field.Errorf(p+".at", "must be within [0, duration], got %v", e.At)
		case e.Capacity == nil && e.Latency == nil:
			return field.Errorf(p, "sets neither capacity nor latency")
		case e.Capacity != nil && !(*e.Capacity >= 0):
			return field.Errorf(p+".capacity", "must be >= 0, got %g", *e.Capacity)
		case e.Latency != nil && !(*e.Latency > 0):
			return field.Errorf(p+".latency", "must be > 0, got %g", *e.Latency)
		case i > 0 && e.At < s.Events[i-1].At:
			return field.Errorf(p+".at", "events must be in time order (%v after %v)", e.At, s.Events[i-1].At)
		}
	}
	return nil
}

func (s *Scenario) hasModel(name string) bool {
	for i := range s.catalogue {
		if s.catalogue[i].Name == name {
			return true
		}
	}
	return false
}

func (s *Scenario) validateWorkload() error {
	return field.Under("workload", s.Workload.Validate(s.Catalogue()))
}

func (s *Scenario) validatePolicies() error {
	names := s.Catalogue()
	if err := s.Policies.FixedLane.Validate(names); err != nil {
		return field.Under("policies.fixed_lane", err)
	}
	if s.Policies.FixedLane.GlobalCap > s.Containers.Capacity {
		return field.Errorf("policies.fixed_lane.global_cap", "%d is above containers.capacity %d", s.Policies.FixedLane.GlobalCap, s.Containers.Capacity)
	}
	if err := field.Under("policies.scheduler", s.Policies.Scheduler.Validate(names)); err != nil {
		return err
	}
	if err := field.Under("policies.inspect", s.Policies.Inspect.Validate(names)); err != nil {
		return err
	}
	return s.decodePolicyBlocks(names)
}

// locate adds the file and the line of its field to a validation error.
// A model's field the model does not set comes from model_defaults: the
// error is placed there, at the line that set the value.
func (s *Scenario) locate(err error) error {
	var fe *field.Error
	if !errors.As(err, &fe) {
		return field.In(s.file, 0, err)
	}
	if p, ok := s.fromDefaults(fe.Path); ok {
		out := *fe
		out.Path = p
		out.Msg += fmt.Sprintf(" (the default of %s)", fe.Path)
		return field.In(s.file, yamltree.Line(s.root, p), &out)
	}
	return field.In(s.file, yamltree.Line(s.root, fe.Path), fe)
}

var modelItemPath = regexp.MustCompile(`^(models|model_groups)\[(\d+)\]\.([a-z_]+)(.*)$`)

// fromDefaults is model_defaults' path for path (a field of a models or
// model_groups item) when the item does not set the field and
// model_defaults does.
func (s *Scenario) fromDefaults(path string) (string, bool) {
	m := modelItemPath.FindStringSubmatch(path)
	if m == nil || s.root == nil {
		return "", false
	}
	top := s.root
	if top.Kind == yaml.DocumentNode && len(top.Content) > 0 {
		top = top.Content[0]
	}
	get := func(n *yaml.Node, key string) *yaml.Node {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i+1]
			}
		}
		return nil
	}
	list := get(top, m[1])
	i, _ := strconv.Atoi(m[2])
	if list == nil || list.Kind != yaml.SequenceNode || i >= len(list.Content) || get(list.Content[i], m[3]) != nil {
		return "", false
	}
	if get(get(top, "model_defaults"), m[3]) == nil {
		return "", false
	}
	return "model_defaults." + m[3] + m[4], true
}
