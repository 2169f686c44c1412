package workloads

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/evalsched/lab/internal/field"
)

// Behaviour is a class of agent job: how many turns it runs, how many parallel
// calls each turn makes, how its tokens grow and how long its tools take.
type Behaviour struct {
	// Turns is the number of agent turns (rounded, at least 1); heavy-tailed
	// in practice, e.g. a bounded Pareto.
	Turns Dist `yaml:"turns" json:"turns"`
	// Fanout is the number of parallel LLM calls in a turn (rounded, >= 1).
	Fanout Dist `yaml:"fanout" json:"fanout"`
	// PromptTokens is the input of the first turn.
	PromptTokens Dist `yaml:"prompt_tokens" json:"prompt_tokens"`
	// OutputTokens is drawn per call.
	OutputTokens Dist `yaml:"output_tokens" json:"output_tokens"`
	// ToolTokens is what a turn's tool step adds to the conversation.
	ToolTokens Dist `yaml:"tool_tokens" json:"tool_tokens"`
	// ToolSeconds is the tool time after each turn, spent in the container.
	ToolSeconds Dist `yaml:"tool_seconds" json:"tool_seconds"`
	// MaxTokens is the max_tokens each call asks for (0: none): a call's
	// output is cut there, and a provider that meters output at admission
	// counts this many (scenario organisations[].output).
	MaxTokens int `yaml:"max_tokens,omitempty" json:"max_tokens,omitempty"`
	// PhaseSwitch optionally changes the fan-out part-way through the job.
	PhaseSwitch *PhaseSwitch `yaml:"phase_switch,omitempty" json:"phase_switch,omitempty"`
	// Grading optionally chains a grading job on a judge model.
	Grading *Grading `yaml:"grading,omitempty" json:"grading,omitempty"`
	// Batch sends the class's jobs to the batch API of the organisation
	// their model bills to (scenario organisations[].batch) instead of
	// the gateway and a container: a deferrable single call (turns and
	// fan-out 1, no phase switch, no grading; its tool time is not run).
	Batch bool `yaml:"batch,omitempty" json:"batch,omitempty"`
	// Plan, when set, replaces every distribution above: the job makes
	// exactly the calls the plan lists (see CallPlan). Only job traces set
	// it (PlanBehaviour); a scenario cannot.
	Plan *CallPlan `yaml:"-" json:"-"`
}

// PhaseSwitch: from turn ceil(AtFraction × turns) on, fan-out is drawn from Fanout.
type PhaseSwitch struct {
	AtFraction float64 `yaml:"at_fraction" json:"at_fraction"`
	Fanout     Dist    `yaml:"fanout" json:"fanout"`
}

// Grading chains a job on a judge model after a job completes.
type Grading struct {
	Probability float64 `yaml:"probability" json:"probability"`
	Judge       string  `yaml:"judge" json:"judge"`
	// Behaviour names the grading job's class; empty means a single call.
	Behaviour string `yaml:"behaviour,omitempty" json:"behaviour,omitempty"`
}

// SingleCall is the behaviour of a job that makes one call and no tool step.
func SingleCall(output float64) Behaviour {
	return Behaviour{
		Turns: Fixed(1), Fanout: Fixed(1), PromptTokens: Fixed(1000),
		OutputTokens: Fixed(output), ToolTokens: Fixed(0), ToolSeconds: Fixed(0),
	}
}

// Validate checks every distribution and compiles it for drawing; path is
// the behaviour's path in errors, which are *field.Error.
func (b *Behaviour) Validate(path string) error {
	if b.Plan != nil {
		return b.Plan.Validate(path + ".plan")
	}
	for _, d := range []struct {
		name string
		dist *Dist
	}{
		{"turns", &b.Turns}, {"fanout", &b.Fanout}, {"prompt_tokens", &b.PromptTokens},
		{"output_tokens", &b.OutputTokens}, {"tool_tokens", &b.ToolTokens}, {"tool_seconds", &b.ToolSeconds},
	} {
		if err := d.dist.compileAt(path + "." + d.name); err != nil {
			return err
		}
	}
	if p := b.PhaseSwitch; p != nil {
		if !(p.AtFraction > 0 && p.AtFraction < 1) {
			return field.Errorf(path+".phase_switch.at_fraction", "must be in (0, 1), got %g", p.AtFraction)
		}
		ps := *p // the behaviour's own copy: a copied Behaviour shares the pointer
		if err := ps.Fanout.compileAt(path + ".phase_switch.fanout"); err != nil {
			return err
		}
		b.PhaseSwitch = &ps
	}
	if err := b.checkLimits(path); err != nil {
		return err
	}
	if b.MaxTokens < 0 || b.MaxTokens > MaxTokens {
		return field.Errorf(path+".max_tokens", "must be in [0, %d] (0 = none), got %d", int(MaxTokens), b.MaxTokens)
	}
	if b.Batch {
		for _, d := range []struct {
			name string
			dist *Dist
		}{{"turns", &b.Turns}, {"fanout", &b.Fanout}} {
			if d.dist.Kind != "fixed" || d.dist.Value != 1 {
				return field.Errorf(path+".batch", "a batch job is a single call: %s must be 1", d.name)
			}
		}
		if b.PhaseSwitch != nil || b.Grading != nil {
			return field.Errorf(path+".batch", "a batch job is a single call: no phase_switch or grading")
		}
	}
	if g := b.Grading; g != nil {
		if !(g.Probability >= 0 && g.Probability <= 1) {
			return field.Errorf(path+".grading.probability", "must be in [0, 1], got %g", g.Probability)
		}
		if g.Judge == "" {
			return field.Errorf(path+".grading.judge", "missing judge model")
		}
	}
	return nil
}

// ApplyDefaults fills unset distributions with a plain single-call job's.
func (b *Behaviour) ApplyDefaults() {
	def := SingleCall(400)
	for _, p := range []struct{ dst, src *Dist }{
		{&b.Turns, &def.Turns}, {&b.Fanout, &def.Fanout}, {&b.PromptTokens, &def.PromptTokens},
		{&b.OutputTokens, &def.OutputTokens}, {&b.ToolTokens, &def.ToolTokens}, {&b.ToolSeconds, &def.ToolSeconds},
	} {
		if p.dst.IsZero() {
			*p.dst = *p.src
		}
	}
}

// Agent is the running state of one job's agent loop. It is a plain value so
// the simulator can keep millions in a slice. Every draw for turn t comes from
// a stream seeded by (job seed, t), so a job behaves identically whatever the
// policy and whatever else the simulator draws in between.
//
// A behaviour with a Plan is followed call by call: the turns, the calls of
// each turn, their tokens and the tool time are the plan's; only the latency
// variation u of each call is drawn, from the same (seed, turn) stream.
type Agent struct {
	b       *Behaviour
	seed    uint64
	turn    int32 // turns started so far
	turns   int32
	switchT int32 // first turn of the second phase; > turns if none
	call    int32 // calls drawn in the current turn (plan mode)
	context int   // input tokens of the next call
	turnOut int   // output tokens produced in the current turn
	// The tool step that follows the current turn, drawn when the turn
	// starts (from its own stream) and applied by EndTurn: its draws are
	// then off the path that schedules the step when the turn's last call
	// is answered.
	toolTokens int
	tool       time.Duration
}

// Start draws the job's length. src is a scratch generator the agent reseeds.
func (a *Agent) Start(b *Behaviour, seed uint64, src *rand.PCG) {
	*a = Agent{b: b, seed: seed}
	if p := b.Plan; p != nil {
		a.turns = int32(len(p.Turns))
		a.switchT = a.turns + 1
		return
	}
	src.Seed(seed, 0x7475726e73) // "turns"
	if n, ok := b.Turns.fixedWhole(); ok {
		a.turns = int32(countOf(n, MaxTurns))
	} else {
		a.turns = int32(countDraw(b.Turns.drawSlow(src), MaxTurns))
	}
	a.switchT = a.turns + 1
	if b.PhaseSwitch != nil {
		a.switchT = int32(math.Ceil(b.PhaseSwitch.AtFraction * float64(a.turns)))
	}
	if n, ok := b.PromptTokens.fixedWhole(); ok {
		a.context = n
	} else {
		a.context = tokenDraw(b.PromptTokens.drawSlow(src))
	}
}

// Turns is the number of turns the job will run.
func (a *Agent) Turns() int { return int(a.turns) }

// Turn is the number of turns started so far.
func (a *Agent) Turn() int { return int(a.turn) }

// NextTurn starts the next turn and returns how many parallel calls it makes;
// ok is false when the job has finished its last turn.
func (a *Agent) NextTurn(src *rand.PCG) (calls int, ok bool) {
	if a.turn >= a.turns {
		return 0, false
	}
	a.turn++
	a.turnOut = 0
	a.call = 0
	if p := a.b.Plan; p != nil {
		src.Seed(a.seed, uint64(a.turn))
		return len(p.Turns[a.turn-1].Calls), true
	}
	src.Seed(a.seed, uint64(a.turn)|1<<40)
	if n, ok := a.b.ToolTokens.fixedWhole(); ok {
		a.toolTokens = n
	} else {
		a.toolTokens = tokenDraw(a.b.ToolTokens.drawSlow(src))
	}
	if d, ok := a.b.ToolSeconds.fixedSpan(); ok {
		a.tool = d
	} else {
		a.tool = toolDuration(a.b.ToolSeconds.drawSlow(src))
	}
	src.Seed(a.seed, uint64(a.turn))
	fan := &a.b.Fanout
	if a.turn >= a.switchT {
		fan = &a.b.PhaseSwitch.Fanout
	}
	if n, ok := fan.fixedWhole(); ok {
		return countOf(n, MaxFanout), true
	}
	if s := &fan.s; s.kind == kindUniform {
		// drawSlow's uniform draw, inline: a turn's fan-out is most often
		// uniform, and the call costs as much as the draw.
		return countDraw(unitOf(src.Uint64())*s.b+s.a, MaxFanout), true
	}
	return countDraw(fan.drawSlow(src), MaxFanout), true
}

// NextCall draws one call of the current turn: its input and output tokens,
// and u, a uniform draw in [0,1) the provider turns into latency variation.
// Call it right after NextTurn, once per call.
func (a *Agent) NextCall(src *rand.PCG) (in, out int, u float64) {
	if p := a.b.Plan; p != nil {
		c := p.Turns[a.turn-1].Calls[a.call]
		a.call++
		return c.In, c.Out, unitOf(src.Uint64())
	}
	if n, ok := a.b.OutputTokens.fixedWhole(); ok {
		out = n
	} else {
		out = tokenDraw(a.b.OutputTokens.drawSlow(src))
	}
	if m := a.b.MaxTokens; m > 0 {
		out = min(out, m)
	}
	a.turnOut += out
	return a.context, out, unitOf(src.Uint64()) // unit(src), with src's Uint64 inlined
}

// Planned reports whether the job follows a plan: only then may a call's
// model, base latency and record (CallModel, Base, Recorded) be other than
// the job's own (-1, 0, zero).
func (a *Agent) Planned() bool { return a.b.Plan != nil }

// Base is the plan's unloaded latency in seconds of the call NextCall
// drew last (PlanTurn.Base), 0 when the plan sets none.
func (a *Agent) Base() float64 {
	if p := a.b.Plan; p != nil && a.call > 0 {
		if t := &p.Turns[a.turn-1]; int(a.call) <= len(t.Base) {
			return t.Base[a.call-1]
		}
	}
	return 0
}

// CallModel is the plan's model of the call NextCall drew last
// (PlanTurn.Models), -1 when the plan sets none: the job's model.
func (a *Agent) CallModel() int {
	if p := a.b.Plan; p != nil && a.call > 0 {
		if t := &p.Turns[a.turn-1]; int(a.call) <= len(t.Models) {
			return t.Models[a.call-1]
		}
	}
	return -1
}

// MaxTokens is the max_tokens the job's calls ask for (0: none).
func (a *Agent) MaxTokens() int { return a.b.MaxTokens }

// Recorded is what the plan recorded of the call NextCall drew last
// beyond its tokens (zero for a drawn behaviour, or a call without a
// record).
func (a *Agent) Recorded() CallRecord {
	if p := a.b.Plan; p != nil && a.call > 0 {
		return p.Turns[a.turn-1].Record(int(a.call) - 1)
	}
	return CallRecord{}
}

// EndTurn returns the tool step that follows the turn (drawn by NextTurn
// from the (seed, turn | 1<<40) stream) and grows the context by the turn's
// outputs and the tool's tokens.
func (a *Agent) EndTurn() (tool time.Duration) {
	if p := a.b.Plan; p != nil {
		return p.Turns[a.turn-1].Tool
	}
	a.context = min(a.context+a.turnOut+a.toolTokens, maxContext)
	return a.tool
}
