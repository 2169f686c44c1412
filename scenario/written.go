package scenario

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/evalsched/lab/internal/field"
	"go.yaml.in/yaml/v3"
)

// zeroDefaulted lists the scenario's fields where the decoded 0 stands for
// "left out" and is replaced by a default, with the rule a written value
// must keep ("[]" is every item of a list). A 0 written there would run as
// the default, so checkWritten refuses it instead.
var zeroDefaulted = []struct{ path, rule string }{
	{"series_interval", "must be > 0"},
	{"fairness_window", "must be >= series_interval"},
	{"gateway.depth_sample", "must be > 0"},
	{"gateway.retry.base", "must be > 0"},
	{"gateway.retry.max", "must be >= base"},
	{"gateway.retry.multiplier", "must be >= 1"},
	{"gateway.adaptive_limit.decrease", "must be within (0, 1)"},
	{"gateway.adaptive_limit.increase", "must be > 0"},
	{"gateway.adaptive_limit.window", "must be > 0"},
	{"gateway.adaptive_limit.max_factor", "must be >= 1"},
	{"gateway.inspect_adaptive.min", "must be >= 1"},
	{"gateway.inspect_adaptive.max", "must be >= min"},
	{"gateway.inspect_adaptive.cooldown", "must be > 0"},
	{"gateway.inspect_adaptive.decrease", "must be within (0, 1)"},
	{"gateway.inspect_adaptive.scale_up", "must be within (0, 1]"},
	{"model_defaults.inflight_limit", "must be > 0"},
	{"models[].inflight_limit", "must be > 0"},
	{"model_groups[].inflight_limit", "must be > 0"},
	{"organisations[].cache.lifetime", "must be > 0"},
	{"models[].cache.lifetime", "must be > 0"},
	{"model_defaults.cache.lifetime", "must be > 0"},
	{"model_groups[].cache.lifetime", "must be > 0"},
	// A cache price left out is the input price × the organisation's
	// factor; a free cache is a factor of 0 (cache.write_factor,
	// cache.read_factor).
	{"models[].prices.cache_write", "must be > 0 (a free cache write is cache.write_factor: 0)"},
	{"models[].prices.cache_read", "must be > 0 (a free cache read is cache.read_factor: 0)"},
	{"model_defaults.prices.cache_write", "must be > 0 (a free cache write is cache.write_factor: 0)"},
	{"model_defaults.prices.cache_read", "must be > 0 (a free cache read is cache.read_factor: 0)"},
	{"model_groups[].prices.cache_write", "must be > 0 (a free cache write is cache.write_factor: 0)"},
	{"model_groups[].prices.cache_read", "must be > 0 (a free cache read is cache.read_factor: 0)"},
	{"organisations[].batch.price_factor", "must be > 0"},
	{"organisations[].batch.window", "must be in (0, 168h]"},
	{"organisations[].batch.median", "must be > 0"},
	{"production[].max_attempts", "must be >= 1"},
	{"production[].retry.base", "must be > 0"},
	{"production[].retry.max", "must be >= base"},
	{"production[].retry.multiplier", "must be >= 1"},
	{"production[].outage_threshold", "must be in (0, 1] (0 would count no minute)"},
	{"policies.fixed_lane.global_cap", "must be > 0"},
}

// checkWritten refuses a 0 written in the document (s.root: the file, or
// the file with an overlay merged on) for a field whose 0 means "use the
// default": the value written must be the value run. It runs before
// applyDefaults, which cannot tell a written 0 from a field left out.
func (s *Scenario) checkWritten() error {
	if s.root == nil {
		return nil
	}
	top := s.root
	if top.Kind == yaml.DocumentNode && len(top.Content) > 0 {
		top = top.Content[0]
	}
	for _, z := range zeroDefaulted {
		if p, ok := writtenZero(top, strings.Split(z.path, "."), ""); ok {
			return field.Errorf(p, "%s, got 0 (leave the field out for the default)", z.rule)
		}
	}
	// A preset derives an organisation's RPM from its TPM where rpm is 0:
	// a written rpm: 0 (elsewhere "no limit") would be replaced.
	for i, o := range s.Organisations {
		if o.Preset != PresetNone && presetVersions[o.Preset.version-1].rules.rpmPerTPM > 0 && i < len(seqItems(top, "organisations")) {
			if v := nodeAt(seqItems(top, "organisations")[i], "rpm"); v != nil && isZero(v) {
				return field.Errorf(fmt.Sprintf("organisations[%d].rpm", i), "0 with preset %s, which derives the RPM from the TPM: leave rpm out for that, or give a limit", o.Preset)
			}
		}
	}
	for _, pc := range []struct {
		at    string
		check func(func(keys ...string) bool) error
	}{
		{"policies.scheduler", s.Policies.Scheduler.CheckWritten},
		{"policies.guards", s.Policies.Guards.CheckWritten},
	} {
		base := nodeAt(top, strings.Split(pc.at, ".")...)
		written := func(keys ...string) bool { return nodeAt(base, keys...) != nil }
		if err := field.Under(pc.at, pc.check(written)); err != nil {
			return err
		}
	}
	return nil
}

// writtenZero finds the first field at the path steps under n whose value
// is a written 0 (0, 0.0, 0s), with its field path.
func writtenZero(n *yaml.Node, steps []string, at string) (string, bool) {
	if n == nil || len(steps) == 0 {
		return at, n != nil && isZero(n)
	}
	key, list := strings.CutSuffix(steps[0], "[]")
	v := nodeAt(n, key)
	if at != "" {
		key = at + "." + key
	}
	if !list {
		return writtenZero(v, steps[1:], key)
	}
	if v == nil || v.Kind != yaml.SequenceNode {
		return "", false
	}
	for i, item := range v.Content {
		if p, ok := writtenZero(item, steps[1:], key+"["+strconv.Itoa(i)+"]"); ok {
			return p, true
		}
	}
	return "", false
}

// seqItems are the items of the list at key under n (none if not a list).
func seqItems(n *yaml.Node, key string) []*yaml.Node {
	if v := nodeAt(n, key); v != nil && v.Kind == yaml.SequenceNode {
		return v.Content
	}
	return nil
}

// nodeAt is the value at the mapping keys under n, nil if any is missing.
func nodeAt(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

// isZero reports whether a scalar node reads as the number or duration 0.
func isZero(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode {
		return false
	}
	var f float64
	if n.Decode(&f) == nil {
		return f == 0
	}
	d, err := time.ParseDuration(n.Value)
	return err == nil && d == 0
}
