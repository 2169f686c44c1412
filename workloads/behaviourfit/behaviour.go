package behaviourfit

import (
	"bytes"
	"fmt"
	"math"
	"strconv"

	"github.com/evalsched/lab/workloads"
)

// Sample is what a behaviour is fitted to, taken from plan jobs.
type Sample struct {
	Jobs, Calls int
	Turns       []float64 // turns per job
	Fanout      []float64 // calls per turn, every turn
	Prompt      []float64 // the first call's input tokens, per job
	Output      []float64 // output tokens, per call
	ToolTokens  []float64 // what a turn adds to the next turn's input beyond its outputs, per turn but a job's last
	ToolSeconds []float64 // tool time after each turn but a job's last
	// ClampedToolTokens counts turns whose next input was smaller than
	// input + outputs (a conversation cut short): counted as 0.
	ClampedToolTokens int
	// fanoutAt is each turn's fan-out with its turn number and the job's
	// turns, for the phase-switch search.
	fanoutAt []turnFan
	// InTokens and CacheRead sum the input and the recorded cache reads.
	InTokens, CacheRead int64
}

type turnFan struct{ turn, turns, fan int }

// Add takes one plan job.
func (s *Sample) Add(p *workloads.CallPlan) {
	s.Jobs++
	n := len(p.Turns)
	s.Turns = append(s.Turns, float64(n))
	s.Prompt = append(s.Prompt, float64(p.Turns[0].Calls[0].In))
	for i := range p.Turns {
		t := &p.Turns[i]
		s.Fanout = append(s.Fanout, float64(len(t.Calls)))
		s.fanoutAt = append(s.fanoutAt, turnFan{i + 1, n, len(t.Calls)})
		out := 0
		for k, c := range t.Calls {
			s.Calls++
			s.Output = append(s.Output, float64(c.Out))
			out += c.Out
			s.InTokens += int64(c.In)
			s.CacheRead += int64(t.Record(k).CacheRead)
		}
		if i+1 < n {
			add := p.Turns[i+1].Calls[0].In - t.Calls[0].In - out
			if add < 0 {
				add = 0
				s.ClampedToolTokens++
			}
			s.ToolTokens = append(s.ToolTokens, float64(add))
			s.ToolSeconds = append(s.ToolSeconds, t.Tool.Seconds())
		}
	}
}

// Result is a fitted behaviour and how each part of it was chosen.
type Result struct {
	Sample                                              *Sample
	Turns, Fanout, Prompt, Output, ToolTokens, ToolSecs Fit
	Phase                                               *PhaseFit
}

// PhaseFit is a fan-out that changes part-way through the jobs.
type PhaseFit struct {
	AtFraction  float64
	Before      Fit // turns before the switch (the behaviour's fanout)
	After       Fit
	AIC, Single float64 // the two-phase fit's AIC (with one parameter for the fraction), the single fit's
}

// FitSample fits every quantity of the sample.
func (s *Sample) Fit() *Result {
	r := &Result{Sample: s,
		Turns: FitSample("turns", s.Turns), Fanout: FitSample("fanout", s.Fanout),
		Prompt: FitSample("prompt_tokens", s.Prompt), Output: FitSample("output_tokens", s.Output),
		ToolTokens: FitSample("tool_tokens", s.ToolTokens), ToolSecs: FitSample("tool_seconds", s.ToolSeconds)}
	r.Phase = s.phase(r.Fanout)
	return r
}

// bestAIC is a fit's least AIC, +Inf when it has no candidates (fixed).
func bestAIC(f Fit) float64 {
	best := math.Inf(1)
	for _, c := range f.Candidates {
		if c.Why == "" {
			best = math.Min(best, c.AIC)
		}
	}
	return best
}

// phase looks for a fan-out switch: for each fraction 0.1 … 0.9, the turns
// from ceil(fraction × turns) on (the simulator's rule) are fitted apart
// from those before; the fraction of least total AIC (each part's fit,
// plus 2 for the fraction) is kept when that is below the single fit's.
// A part with fewer than MinSample values, or all equal, is not fitted.
func (s *Sample) phase(single Fit) *PhaseFit {
	one := bestAIC(single)
	if math.IsInf(one, 1) {
		return nil
	}
	var best *PhaseFit
	for k := 1; k <= 9; k++ {
		f := float64(k) / 10
		var before, after []float64
		for _, t := range s.fanoutAt {
			if t.turn >= int(math.Ceil(f*float64(t.turns))) {
				after = append(after, float64(t.fan))
			} else {
				before = append(before, float64(t.fan))
			}
		}
		b, a := FitSample("fanout", before), FitSample("phase_switch.fanout", after)
		total := bestAIC(b) + bestAIC(a) + 2
		if math.IsInf(total, 1) || total >= one {
			continue
		}
		if best == nil || total < best.AIC {
			best = &PhaseFit{AtFraction: f, Before: b, After: a, AIC: total, Single: one}
		}
	}
	return best
}

// Behaviour is the fitted behaviour class.
func (r *Result) Behaviour() workloads.Behaviour {
	b := workloads.Behaviour{Turns: r.Turns.Dist, Fanout: r.Fanout.Dist, PromptTokens: r.Prompt.Dist,
		OutputTokens: r.Output.Dist, ToolTokens: r.ToolTokens.Dist, ToolSeconds: r.ToolSecs.Dist}
	if p := r.Phase; p != nil {
		b.Fanout = p.Before.Dist
		b.PhaseSwitch = &workloads.PhaseSwitch{AtFraction: p.AtFraction, Fanout: p.After.Dist}
	}
	return b
}

// YAML writes the behaviour as a YAML mapping (the keys of a behaviour
// class), each key after comments saying what it was fitted to and how.
func (r *Result) YAML(source string) []byte {
	var b bytes.Buffer
	s := r.Sample
	fmt.Fprintf(&b, "# Behaviour fitted by `sim trace fit` from %s: %d plan jobs, %d turns, %d calls.\n", source, s.Jobs, len(s.Fanout), s.Calls)
	fmt.Fprintf(&b, "# Paste it under workload.behaviours.NAME of a scenario.\n")
	fmt.Fprintf(&b, "# Each distribution: the least AIC among the families the lab draws (uniform,\n")
	fmt.Fprintf(&b, "# exponential, lognormal, bounded Pareto; maximum-likelihood fits), or fixed\n")
	fmt.Fprintf(&b, "# at the mean with fewer than %d values or no spread. Counts (turns, fanout)\n", MinSample)
	fmt.Fprintf(&b, "# are fitted as continuous values; the simulator rounds each draw (at least 1).\n")
	if s.InTokens > 0 {
		fmt.Fprintf(&b, "# Recorded cache reads: %.1f%% of input tokens (the behaviour has no cache\n# field: the simulator meters every input token as fresh).\n", 100*float64(s.CacheRead)/float64(s.InTokens))
	}
	write := func(key string, f Fit, d workloads.Dist, extra string) {
		fmt.Fprintf(&b, "\n# %s: n=%d, mean %s; %s.", key, f.N, g(f.Mean), f.Criterion)
		if extra != "" {
			fmt.Fprintf(&b, " %s", extra)
		}
		b.WriteByte('\n')
		for _, c := range f.Candidates {
			if c.Why != "" {
				fmt.Fprintf(&b, "#   %-12s not fitted: %s\n", c.Dist.Kind, c.Why)
			} else {
				fmt.Fprintf(&b, "#   %-12s AIC %s  %s\n", c.Dist.Kind, g(c.AIC), distYAML(c.Dist))
			}
		}
		fmt.Fprintf(&b, "%s: %s\n", key, distYAML(d))
	}
	write("turns", r.Turns, r.Turns.Dist, "Turns per job.")
	fan := r.Fanout
	if r.Phase != nil {
		fan = r.Phase.Before
	}
	write("fanout", fan, fan.Dist, "Parallel calls per turn (a turn: calls whose intervals overlap).")
	write("prompt_tokens", r.Prompt, r.Prompt.Dist, "The first call's input tokens.")
	write("output_tokens", r.Output, r.Output.Dist, "Per call.")
	write("tool_tokens", r.ToolTokens, r.ToolTokens.Dist, fmt.Sprintf("Next turn's input less this turn's input and outputs; %d negative differences counted as 0.", s.ClampedToolTokens))
	write("tool_seconds", r.ToolSecs, r.ToolSecs.Dist, "From a turn's last answer to the next turn's first call (the simulator also runs one after the last turn).")
	if p := r.Phase; p != nil {
		fmt.Fprintf(&b, "\n# Phase switch: fan-out from turn ceil(%g × turns) on fitted apart; AIC %s (both parts + 2 for the fraction) against %s for one fan-out.\n", p.AtFraction, g(p.AIC), g(p.Single))
		fmt.Fprintf(&b, "phase_switch:\n  at_fraction: %g\n  fanout: %s\n", p.AtFraction, distYAML(p.After.Dist))
	} else {
		fmt.Fprintf(&b, "\n# No phase switch: no split of the fan-out at a fraction 0.1 … 0.9 of the turns had a lower AIC than one fan-out.\n")
	}
	return b.Bytes()
}

func g(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// distYAML is a Dist in YAML flow form.
func distYAML(d workloads.Dist) string {
	switch d.Kind {
	case "fixed":
		return fmt.Sprintf("{dist: fixed, value: %s}", g(d.Value))
	case "uniform":
		return fmt.Sprintf("{dist: uniform, min: %s, max: %s}", g(d.Min), g(d.Max))
	case "exponential":
		return fmt.Sprintf("{dist: exponential, mean: %s}", g(d.Mean))
	case "lognormal":
		return fmt.Sprintf("{dist: lognormal, median: %s, sigma: %s}", g(d.Median), g(d.Sigma))
	case "pareto":
		return fmt.Sprintf("{dist: pareto, min: %s, max: %s, alpha: %s}", g(d.Min), g(d.Max), g(d.Alpha))
	}
	return "{dist: " + d.Kind + "}"
}
