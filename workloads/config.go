package workloads

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evalsched/lab/internal/field"
)

// Config describes the synthetic workload: accounts → projects → batches →
// jobs, batches arriving in bursts and as a steady background.
type Config struct {
	Accounts           int                  `yaml:"accounts" json:"accounts"`
	ProjectsPerAccount int                  `yaml:"projects_per_account" json:"projects_per_account"`
	Tiers              TierConfig           `yaml:"tiers" json:"tiers"`
	Models             ModelMix             `yaml:"models" json:"models"`
	Batches            BatchProcess         `yaml:"batches" json:"batches"`
	Background         BatchProcess         `yaml:"background" json:"background"`
	Behaviours         map[string]Behaviour `yaml:"behaviours" json:"behaviours"`
	// BehaviourMix weights the behaviour classes batches draw from.
	BehaviourMix map[string]float64 `yaml:"behaviour_mix" json:"behaviour_mix"`
}

// TierConfig sets priority tiers. Account tiers are drawn from Account
// (weights of tier 1, 2, ...); a project or batch sets its own tier with the
// given probability; Pinned sets named accounts, projects or batches.
type TierConfig struct {
	Account         []float64      `yaml:"account" json:"account"`
	ProjectOverride float64        `yaml:"project_override" json:"project_override"`
	BatchOverride   float64        `yaml:"batch_override" json:"batch_override"`
	Pinned          map[string]int `yaml:"pinned" json:"pinned"`
}

// ModelMix is the popularity of models: the hot models share HotShare of the
// batches (evenly, or in proportion to HotWeights), the rest follow a Zipf
// law with exponent ZipfS (> 1).
type ModelMix struct {
	Hot      []string `yaml:"hot" json:"hot"`
	HotShare float64  `yaml:"hot_share" json:"hot_share"`
	// HotWeights, if set, are relative weights of the hot models (one each,
	// in Hot's order) within HotShare.
	HotWeights []float64 `yaml:"hot_weights" json:"hot_weights,omitempty"`
	ZipfS      float64   `yaml:"zipf_s" json:"zipf_s"`
	// Exclude lists models no batch is drawn for (e.g. a judge model that
	// only serves grading jobs).
	Exclude []string `yaml:"exclude" json:"exclude,omitempty"`
}

// BatchProcess is a stream of batches: Poisson at RatePerHour (a long-run
// mean, shaped over the day and week by Profile), plus bursts of several
// batches at given times.
type BatchProcess struct {
	RatePerHour float64 `yaml:"rate_per_hour" json:"rate_per_hour"`
	Profile     Profile `yaml:"profile" json:"profile,omitzero"`
	Size        Dist    `yaml:"size" json:"size"`
	Bursts      []Burst `yaml:"bursts" json:"bursts"`
}

// Burst submits Batches batches spread uniformly over Spread from At.
type Burst struct {
	At      time.Duration `yaml:"at" json:"at"`
	Batches int           `yaml:"batches" json:"batches"`
	Spread  time.Duration `yaml:"spread" json:"spread"`
}

// Validate checks the config against the model catalogue and compiles the
// batch-size distributions. Errors are *field.Error with the path relative
// to the workload block (models.hot[0], behaviours.x.turns.min).
func (c *Config) Validate(models []string) error {
	if len(models) == 0 {
		return field.Errorf("models", "the catalogue is empty")
	}
	index := make(map[string]int, len(models))
	for i, m := range models {
		index[m] = i
	}
	if c.Accounts < 1 {
		return field.Errorf("accounts", "must be >= 1, got %d", c.Accounts)
	}
	if c.ProjectsPerAccount < 1 {
		return field.Errorf("projects_per_account", "must be >= 1, got %d", c.ProjectsPerAccount)
	}
	for _, check := range []func() error{
		c.validateTiers,
		func() error { return c.validateModels(models, index) },
		c.validateBatches,
		func() error { return c.validateBehaviours(index) },
	} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (c *Config) validateTiers() error {
	for i, w := range c.Tiers.Account {
		if w < 0 {
			return field.Errorf(fmt.Sprintf("tiers.account[%d]", i), "weight must be >= 0, got %g", w)
		}
	}
	if len(c.Tiers.Account) > 100 {
		return field.Errorf("tiers.account", "at most 100 tiers, got %d", len(c.Tiers.Account))
	}
	total := 0.0
	for _, w := range c.Tiers.Account {
		total += w
	}
	if len(c.Tiers.Account) > 0 && !(total > 0 && !math.IsInf(total, 1)) {
		// All zero drew every account into the last tier, as if meant.
		return field.Errorf("tiers.account", "weights must add up to a finite number > 0, got %g", total)
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"tiers.project_override", c.Tiers.ProjectOverride}, {"tiers.batch_override", c.Tiers.BatchOverride}, {"models.hot_share", c.Models.HotShare}} {
		if !(p.v >= 0 && p.v <= 1) {
			return field.Errorf(p.name, "must be in [0, 1], got %g", p.v)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Tiers.Pinned)) {
		if t := c.Tiers.Pinned[name]; t < 1 || t > 100 {
			return field.Errorf("tiers.pinned."+name, "tier must be in 1..100, got %d", t)
		}
		if !c.generates(name) {
			last, lastP := max(c.Accounts-1, 0), max(c.ProjectsPerAccount-1, 0)
			return field.Errorf("tiers.pinned."+name, "the generator makes no account, project or batch of this name (accounts %s to %s, projects %s to %s, batches %s on)",
				accountName(0), accountName(last), projectName(0, 0), projectName(last, lastP), BatchName(1))
		}
	}
	return nil
}

// generates reports whether the generator can give name to an account, a
// project or a batch: a pinned name matches those only, so any other (a
// typo, an account past the last) would pin nothing, silently. The index
// read from name must write it back as the generator's own names do.
func (c *Config) generates(name string) bool {
	acct, proj, hasProj := strings.Cut(name, "/")
	if a, err := strconv.Atoi(strings.TrimPrefix(acct, "acct-")); err == nil && a >= 0 && a < c.Accounts && accountName(a) == acct {
		p, err := strconv.Atoi(strings.TrimPrefix(proj, "p"))
		return !hasProj || (err == nil && p >= 0 && p < c.ProjectsPerAccount && projectName(a, p) == name)
	}
	seq, err := strconv.Atoi(strings.TrimPrefix(name, "b"))
	return err == nil && seq >= 1 && BatchName(seq) == name
}

func (c *Config) validateModels(models []string, index map[string]int) error {
	for i, h := range c.Models.Hot {
		if _, ok := index[h]; !ok {
			return field.Errorf(fmt.Sprintf("models.hot[%d]", i), "unknown model %q", h)
		}
	}
	if len(c.Models.HotWeights) > 0 {
		if _, _, err := factors("models.hot_weights", c.Models.HotWeights, len(c.Models.Hot)); err != nil {
			return err
		}
	}
	excluded := map[string]bool{}
	for i, e := range c.Models.Exclude {
		path := fmt.Sprintf("models.exclude[%d]", i)
		if _, ok := index[e]; !ok {
			return field.Errorf(path, "unknown model %q", e)
		}
		if slices.Contains(c.Models.Hot, e) {
			return field.Errorf(path, "%q is also hot", e)
		}
		excluded[e] = true
	}
	if len(c.Models.Hot) == 0 && len(excluded) == len(models) {
		return field.Errorf("models.exclude", "every model is excluded")
	}
	if len(c.Models.Hot) == 0 && c.Models.HotShare > 0 {
		return field.Errorf("models.hot_share", "%g but no hot models listed", c.Models.HotShare)
	}
	if len(c.Models.Hot) < len(models) && c.Models.HotShare < 1 && !(c.Models.ZipfS > 1) {
		return field.Errorf("models.zipf_s", "must be > 1, got %g", c.Models.ZipfS)
	}
	return nil
}

func (c *Config) validateBatches() error {
	for _, p := range []struct {
		name string
		bp   *BatchProcess
	}{{"batches", &c.Batches}, {"background", &c.Background}} {
		if !(p.bp.RatePerHour >= 0) || math.IsInf(p.bp.RatePerHour, 0) {
			return field.Errorf(p.name+".rate_per_hour", "must be >= 0 and finite, got %g", p.bp.RatePerHour)
		}
		if err := p.bp.Profile.compile(p.name + ".profile"); err != nil {
			return err
		}
		if p.bp.RatePerHour > 0 || len(p.bp.Bursts) > 0 {
			if err := p.bp.Size.compileAt(p.name + ".size"); err != nil {
				return err
			}
		}
		for i, b := range p.bp.Bursts {
			if b.At < 0 || b.Batches < 1 || b.Spread < 0 {
				return field.Errorf(fmt.Sprintf("%s.bursts[%d]", p.name, i), "need at >= 0, batches >= 1, spread >= 0")
			}
		}
	}
	return nil
}

func (c *Config) validateBehaviours(index map[string]int) error {
	if len(c.Behaviours) == 0 {
		return field.Errorf("behaviours", "at least one behaviour class is needed")
	}
	for _, name := range slices.Sorted(maps.Keys(c.Behaviours)) {
		b, err := behaviourClass(c.Behaviours, name)
		if err != nil {
			return err
		}
		if g := b.Grading; g != nil {
			if _, ok := index[g.Judge]; !ok {
				return field.Errorf("behaviours."+name+".grading.judge", "unknown model %q", g.Judge)
			}
		}
		if err := checkGradingClass(c.Behaviours, name); err != nil {
			return err
		}
	}
	total := 0.0
	for _, name := range slices.Sorted(maps.Keys(c.BehaviourMix)) {
		w := c.BehaviourMix[name]
		if _, ok := c.Behaviours[name]; !ok {
			return field.Errorf("behaviour_mix."+name, "unknown behaviour")
		}
		if w < 0 {
			return field.Errorf("behaviour_mix."+name, "weight must be >= 0, got %g", w)
		}
		total += w
	}
	if len(c.BehaviourMix) > 0 && total == 0 {
		return field.Errorf("behaviour_mix", "weights add up to 0")
	}
	return nil
}

// BehaviourClasses builds the behaviour classes of a workload by name, each
// a fresh copy with its defaults applied and validated. The generator builds
// its classes with it, so a trace reader given the same config gets classes
// equal in value to the generator's.
func BehaviourClasses(cfg Config) (map[string]*Behaviour, error) {
	classes := make(map[string]*Behaviour, len(cfg.Behaviours))
	for _, name := range slices.Sorted(maps.Keys(cfg.Behaviours)) {
		b, err := behaviourClass(cfg.Behaviours, name)
		if err != nil {
			return nil, err
		}
		if err := checkGradingClass(cfg.Behaviours, name); err != nil {
			return nil, err
		}
		classes[name] = b
	}
	return classes, nil
}

// behaviourClass is a fresh copy of the named class with its defaults
// applied, validated and compiled.
func behaviourClass(behaviours map[string]Behaviour, name string) (*Behaviour, error) {
	b := behaviours[name]
	b.ApplyDefaults()
	if err := b.Validate("behaviours." + name); err != nil {
		return nil, err
	}
	return &b, nil
}

// checkGradingClass checks that the class a grading step names exists.
func checkGradingClass(behaviours map[string]Behaviour, name string) error {
	if g := behaviours[name].Grading; g != nil {
		if _, ok := behaviours[g.Behaviour]; g.Behaviour != "" && !ok {
			return field.Errorf("behaviours."+name+".grading.behaviour", "unknown behaviour %q", g.Behaviour)
		}
	}
	return nil
}

// GradingBehaviours maps each class with a grading step to the behaviour of
// its grading job: the class its grading.behaviour names, or a single call
// of 400 output tokens (one shared value) when it names none. The generator
// and the trace reader resolve a job's JudgeBehaviour with it.
func GradingBehaviours(classes map[string]*Behaviour) map[*Behaviour]*Behaviour {
	judgeOf := make(map[*Behaviour]*Behaviour)
	single := SingleCall(400)
	for _, name := range slices.Sorted(maps.Keys(classes)) {
		if gr := classes[name].Grading; gr != nil {
			if jb, ok := classes[gr.Behaviour]; ok {
				judgeOf[classes[name]] = jb
			} else {
				judgeOf[classes[name]] = &single
			}
		}
	}
	return judgeOf
}

// ClassNames inverts a class map: behaviour pointer to class name.
func ClassNames(classes map[string]*Behaviour) map[*Behaviour]string {
	names := make(map[*Behaviour]string, len(classes))
	for name, b := range classes {
		names[b] = name
	}
	return names
}

// ResolvePaths makes the files of empirical distributions (batch sizes and
// every behaviour's distributions) relative to dir instead of the working
// directory, leaving absolute paths alone. A scenario loader calls it with
// the scenario file's directory before Validate.
func (c *Config) ResolvePaths(dir string) {
	fix := func(d *Dist) {
		if d.Kind == "empirical" && d.File != "" && !filepath.IsAbs(d.File) && !IsEmbeddedTrace(d.File) {
			d.File = filepath.Join(dir, d.File)
		}
	}
	fix(&c.Batches.Size)
	fix(&c.Background.Size)
	for name, b := range c.Behaviours {
		for _, d := range []*Dist{&b.Turns, &b.Fanout, &b.PromptTokens, &b.OutputTokens, &b.ToolTokens, &b.ToolSeconds} {
			fix(d)
		}
		if b.PhaseSwitch != nil {
			ps := *b.PhaseSwitch
			fix(&ps.Fanout)
			b.PhaseSwitch = &ps
		}
		c.Behaviours[name] = b
	}
}

// JudgeModels are the models the grading steps of the behaviours name,
// sorted: the lanes that serve grading jobs.
func (c *Config) JudgeModels() []string {
	var out []string
	for _, b := range c.Behaviours {
		if g := b.Grading; g != nil && g.Judge != "" && !slices.Contains(out, g.Judge) {
			out = append(out, g.Judge)
		}
	}
	slices.Sort(out)
	return out
}
