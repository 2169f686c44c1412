package scenario

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/internal/yamltree"
	"github.com/evalsched/lab/policies"
	"go.yaml.in/yaml/v3"
)

// PolicyFactory builds a policy from a scenario's settings and model
// catalogue.
type PolicyFactory func(s *Scenario, models []string) (policies.Policy, error)

// ConfigFactory builds a policy from its own settings, the policies.NAME
// block of the scenario decoded strictly into a C (its zero value when the
// block is absent), and the argument of the policy's name: the text after
// "NAME:" ("" for a bare NAME).
type ConfigFactory[C any] func(cfg C, arg string, s *Scenario, models []string) (policies.Policy, error)

// entry is one registered policy.
type entry struct {
	plain PolicyFactory
	// own, for a built-in policy, is the one block of policies its factory
	// reads besides guards (Scenario.RunDigest leaves the others out).
	own string
	// A policy with a config block: the block's Go type, its decoder (the
	// block checked by the YAML pre-pass already) and its builder.
	cfgType reflect.Type
	decode  func(n *yaml.Node, models []string) (any, error)
	build   func(cfg any, arg string, s *Scenario, models []string) (policies.Policy, error)
}

// registry maps a policy name to its factory, in registration order.
var registry = struct {
	names   []string
	entries map[string]entry
}{entries: map[string]entry{}}

// RegisterPolicy makes a policy available by name to scenarios, variants,
// sweeps and the CLI. It panics on an empty or repeated name: registration
// happens at start-up, and two policies under one name would make a run
// ambiguous.
func RegisterPolicy(name string, f PolicyFactory) {
	if f == nil {
		panic("scenario.RegisterPolicy: nil factory")
	}
	register(name, entry{plain: f})
}

// RegisterConfigPolicy is RegisterPolicy for a policy with settings of its
// own: a scenario may hold them in a block policies.NAME, checked when the
// scenario is read like every other key (an unknown key, a wrong type or a
// duration without a unit is a FILE:LINE: policies.NAME.KEY error) and
// decoded into a C, which is validated by its method Validate(models
// []string) error when it has one (a *field.Error's path is taken under
// policies.NAME). The policy is named NAME, or NAME:ARG with an argument.
func RegisterConfigPolicy[C any](name string, f ConfigFactory[C]) {
	if f == nil {
		panic("scenario.RegisterConfigPolicy: nil factory")
	}
	if strings.Contains(name, ":") {
		panic(fmt.Sprintf("scenario.RegisterConfigPolicy: %q: a name has no colon (NAME:ARG passes ARG)", name))
	}
	register(name, entry{
		cfgType: reflect.TypeFor[C](),
		decode: func(n *yaml.Node, models []string) (any, error) {
			var c C
			if n != nil {
				if err := n.Decode(&c); err != nil {
					return nil, yamltree.Err(nil, reflect.TypeFor[C](), err)
				}
			}
			if v, ok := any(c).(interface{ Validate([]string) error }); ok {
				if err := v.Validate(models); err != nil {
					return nil, err
				}
			}
			return c, nil
		},
		build: func(cfg any, arg string, s *Scenario, models []string) (policies.Policy, error) {
			return f(cfg.(C), arg, s, models)
		},
	})
}

func register(name string, e entry) {
	if name == "" {
		panic("scenario.RegisterPolicy: empty name")
	}
	if _, dup := registry.entries[name]; dup {
		panic(fmt.Sprintf("scenario.RegisterPolicy: policy %q registered twice", name))
	}
	if _, builtin := builtinBlocks[name]; builtin && e.cfgType != nil {
		panic(fmt.Sprintf("scenario.RegisterConfigPolicy: %q is a key of policies already", name))
	}
	registry.names = append(registry.names, name)
	registry.entries[name] = e
}

// builtinBlocks are the keys of PolicyConfigs itself.
var builtinBlocks = map[string]reflect.Type{}

func init() {
	yamltree.Fields(reflect.TypeFor[PolicyConfigs](), builtinBlocks)
	registerBuiltin("fixed-lane", "fixed_lane", func(s *Scenario, models []string) (policies.Policy, error) {
		return policies.NewFixedLane(s.Policies.FixedLane, models)
	})
	registerBuiltin("scheduler", "scheduler", func(s *Scenario, models []string) (policies.Policy, error) {
		return policies.NewScheduler(s.Policies.Scheduler, models)
	})
}

// registerBuiltin is RegisterPolicy for a built-in policy whose factory
// reads, of policies, only the block own and the guards.
func registerBuiltin(name, own string, f PolicyFactory) {
	register(name, entry{plain: f, own: own})
}

// PolicyNames lists the registered policies, in registration order; a
// policy taking an argument is listed as NAME[:ARG].
func PolicyNames() []string {
	out := slices.Clone(registry.names)
	for i, n := range out {
		if registry.entries[n].cfgType != nil {
			out[i] = n + "[:ARG]"
		}
	}
	return out
}

// lookup splits a policy name into its registered entry and argument.
func lookup(name string) (entry, string, bool) {
	if e, ok := registry.entries[name]; ok {
		return e, "", true
	}
	base, arg, found := strings.Cut(name, ":")
	if e, ok := registry.entries[base]; ok && found && e.cfgType != nil {
		return e, arg, true
	}
	return entry{}, "", false
}

// IsPolicy reports whether name is a registered policy (NAME, or NAME:ARG
// for a policy with a config block).
func IsPolicy(name string) bool {
	_, _, ok := lookup(name)
	return ok
}

// configBlockType is the Go type of the block policies.key of a
// registered policy with settings, or nil.
func configBlockType(key string) reflect.Type {
	if e, ok := registry.entries[key]; ok {
		return e.cfgType
	}
	return nil
}

// configBlockNames lists the registered policies with a config block.
func configBlockNames() []string {
	var out []string
	for _, n := range registry.names {
		if registry.entries[n].cfgType != nil {
			out = append(out, n)
		}
	}
	return out
}

// decodePolicyBlocks decodes and validates every policies.NAME block of
// a registered policy (validatePolicies).
func (s *Scenario) decodePolicyBlocks(models []string) error {
	s.policyCfg = map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(s.Policies.Blocks)) {
		e, ok := registry.entries[name]
		if !ok || e.cfgType == nil {
			return field.Errorf("policies."+name, "no registered policy %q takes settings (have %s)", name, strings.Join(configBlockNames(), ", "))
		}
		n := s.Policies.Blocks[name]
		cfg, err := e.decode(&n, models)
		if err != nil {
			return field.Under("policies."+name, err)
		}
		s.policyCfg[name] = cfg
	}
	return nil
}

// CheckPolicy reports whether NewPolicy could build the named policy on
// the scenario. A policy without settings is built and dropped; one with
// a config block is not built (it may start a process): its block was
// checked when the scenario was read.
func CheckPolicy(name string, s *Scenario) error {
	e, _, ok := lookup(name)
	if !ok {
		return unknownPolicy(name)
	}
	if e.plain != nil {
		_, err := NewPolicy(name, s)
		return err
	}
	return nil
}

func unknownPolicy(name string) error {
	return fmt.Errorf("unknown policy %q (want %s)", name, strings.Join(PolicyNames(), " or "))
}

// NewPolicy builds the named policy from the scenario's settings.
// With policies.guards set, the policy wears the guards (policies.Guard).
func NewPolicy(name string, s *Scenario) (policies.Policy, error) {
	e, arg, ok := lookup(name)
	if !ok {
		return nil, unknownPolicy(name)
	}
	models := s.Catalogue()
	var p policies.Policy
	var err error
	if e.plain != nil {
		p, err = e.plain(s, models)
	} else {
		base, _, _ := strings.Cut(name, ":")
		cfg, ok := s.policyCfg[base]
		if !ok {
			if cfg, err = e.decode(nil, models); err != nil {
				return nil, s.locate(field.Under("policies."+base, err))
			}
		}
		p, err = e.build(cfg, arg, s, models)
	}
	if err != nil || !s.Policies.Guards.Active() {
		return p, err
	}
	return policies.NewGuard(p, s.Policies.Guards, len(models)), nil
}

// FieldErrorf is an error at a key of a policy's config block, for its
// Validate method: path is relative to the block ("max_running"), and the
// scenario reports it at that key's line, as FILE:LINE: policies.NAME.PATH.
func FieldErrorf(path, format string, args ...any) error {
	return field.Errorf(path, format, args...)
}
