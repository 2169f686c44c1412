// Package behaviourfit fits a behaviour class (workloads.Behaviour: turns,
// fan-out, tokens and their growth, tool seconds, a phase switch) to the
// plan jobs of a job trace, such as one `sim trace import` wrote, and
// holds the embedded behaviour presets.
//
// From each plan job it takes: its number of turns; each turn's number of
// calls (fan-out); the first call's input (prompt tokens); each call's
// output; after each turn but the last, the tool time, and the tool tokens:
// the next turn's first input less this turn's first input and its
// outputs (the Agent grows its context by exactly outputs + tool tokens,
// so this inverts it; a negative difference, a conversation cut short,
// counts as 0 and is counted).
//
// Each quantity's distribution is chosen by AIC (2k − 2 ln L) among the
// families the lab draws, each fitted by maximum likelihood: uniform on
// [min, max] of the sample (k = 2), exponential (k = 1, mean), lognormal
// (k = 2, median and sigma of the logs), bounded Pareto on [min, max]
// (k = 3, alpha by golden-section search on the concave log-likelihood).
// A family that cannot hold the data (a lognormal or Pareto with zeros) is
// left out, and said. Fewer than MinSample values, or no spread, give a
// fixed value at the mean. Counts are fitted as continuous values (a
// uniform widened by half a unit each side, not below 1); the simulator
// draws max(1, round(X)), and the counts are compared by their
// likelihood under that draw, P(round(X) = k). A fan-out phase switch is
// kept when splitting the turns at ceil(f × turns), f in 0.1 … 0.9 (the
// simulator's rule), lowers the AIC of the counts, each part with a free
// probability per value seen (no family assumed), plus 2 for f, below
// that of the unsplit counts.
//
// figures.go draws each quantity's empirical CDF against its fitted CDF
// (gonum/plot PNGs). The presets (presets/*.yaml) are behaviours whose
// numbers come from published aggregates, every assumption in comments.
package behaviourfit
