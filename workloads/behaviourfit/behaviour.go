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
	AIC, Single float64 // the split's categorical AIC (with 2 for the fraction), the unsplit counts'

}

// FitSample fits every quantity of the sample.
func (s *Sample) Fit() *Result {
	r := &Result{Sample: s,
		Turns: FitCounts("turns", s.Turns), Fanout: FitCounts("fanout", s.Fanout),
		Prompt: FitSample("prompt_tokens", s.Prompt), Output: FitSample("output_tokens", s.Output),
		ToolTokens: FitSample("tool_tokens", s.ToolTokens), ToolSecs: FitSample("tool_seconds", s.ToolSeconds)}
	r.Phase = s.phase()
	for _, c := range []struct {
		f     *Fit
		limit float64
	}{{&r.Turns, workloads.MaxTurns}, {&r.Fanout, workloads.MaxFanout}, {&r.Prompt, workloads.MaxTokens}, {&r.Output, workloads.MaxTokens},
		{&r.ToolTokens, workloads.MaxTokens}, {&r.ToolSecs, workloads.MaxToolSeconds}} {
		capAt(c.f, c.limit)
	}
	if r.Phase != nil {
		capAt(&r.Phase.Before, workloads.MaxFanout)
		capAt(&r.Phase.After, workloads.MaxFanout)
	}
	return r
}

// categoricalAIC is the AIC of counts under a categorical distribution
// with a free probability per value seen (k = values − 1): the model that
// assumes no family, so a split is judged on the counts alone.
func categoricalAIC(v []float64) float64 {
	n := map[float64]int{}
	for _, x := range v {
		n[math.Round(x)]++
	}
	logL := 0.0
	for _, c := range n {
		logL += float64(c) * math.Log(float64(c)/float64(len(v)))
	}
	return 2*float64(len(n)-1) - 2*logL
}

// phase looks for a fan-out switch: for each fraction 0.1 … 0.9, the turns
// from ceil(fraction × turns) on (the simulator's rule) are set apart from
// those before. The split of least AIC, each part's counts categorical
// (categoricalAIC) plus 2 for the fraction, is kept when that is below the
// AIC of all the counts as one categorical distribution; each part is then
// fitted with FitCounts. Parts of fewer than MinSample turns are not tried.
func (s *Sample) phase() *PhaseFit {
	one := categoricalAIC(s.Fanout)
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
		if len(before) < MinSample || len(after) < MinSample {
			continue
		}
		total := categoricalAIC(before) + categoricalAIC(after) + 2
		if total >= one || (best != nil && total >= best.AIC) {
			continue
		}
		best = &PhaseFit{AtFraction: f, Before: FitCounts("fanout", before), After: FitCounts("phase_switch.fanout", after), AIC: total, Single: one}
	}
	return best
}

// capAt bounds a fitted distribution by the simulator's limit for the
// quantity (workloads.MaxTokens and the like), which a scenario refuses to
// exceed, and says so in the criterion.
func capAt(f *Fit, limit float64) {
	d := &f.Dist
	if _, hi := d.Bounds(); hi <= limit {
		return
	}
	switch d.Kind {
	case "fixed":
		d.Value = limit
	case "uniform", "pareto":
		if d.Min >= limit {
			*d = workloads.Fixed(limit)
		} else {
			d.Max = limit
		}
	default:
		if d.Median >= limit || d.Mean >= limit {
			*d = workloads.Fixed(limit)
		} else {
			d.Max = limit
		}
	}
	f.Criterion += fmt.Sprintf("; capped at the simulator's limit %g", limit)
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
	fmt.Fprintf(&b, "# are compared by the likelihood of the counts under the simulator's rounded\n# draw, max(1, round(X)).\n")
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
		fmt.Fprintf(&b, "\n# Phase switch: fan-out from turn ceil(%g × turns) on fitted apart: the split's AIC,\n# each part's counts categorical, + 2 for the fraction, is %s against %s unsplit.\n", p.AtFraction, g(p.AIC), g(p.Single))
		fmt.Fprintf(&b, "phase_switch:\n  at_fraction: %g\n  fanout: %s\n", p.AtFraction, distYAML(p.After.Dist))
	} else {
		fmt.Fprintf(&b, "\n# No phase switch: no split of the fan-out counts at a fraction 0.1 … 0.9 of the\n# turns had a lower AIC (each part categorical, + 2 for the fraction) than unsplit.\n")
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
	return "{dist: " + string(d.Kind) + "}"
}
