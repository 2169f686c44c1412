package lab

import (
	"fmt"
	"math"
	"slices"
)

// figureRange is the values a metric can take (docs/reference/metrics.md):
// from Lo to Hi (+Inf: no bound above), and the unit a message names.
type figureRange struct {
	Lo, Hi float64
	Unit   string
}

// figureRanges holds every metric of MetricNames: counts, rates, times
// and ratios of them are never below 0; Jain's index and a share of a
// job's time never above 1.
var figureRanges = map[string]figureRange{
	MetricThroughput: {0, math.Inf(1), " jobs/h"},
	MetricMultiplier: {0, math.Inf(1), "×"},
	MetricTokens:     {0, math.Inf(1), " tokens/h"},
	MetricTokenMult:  {0, math.Inf(1), "×"},
	MetricP90:        {0, math.Inf(1), " s"},
	MetricJain:       {0, 1, ""},
	Metric429:        {0, math.Inf(1), " rejections"},
	MetricOutage:     {0, math.Inf(1), " minutes"},
	MetricP90Queued:  {0, 1, ""},
}

// uncrossable says why a limit of the metric's figure cannot be crossed:
// a floor at or below the least value the figure takes (it fails only
// below the floor), a ceiling at or above the greatest ("" if it can be).
func uncrossable(metric, bound string, limit float64) string {
	r := figureRanges[metric]
	switch {
	case bound == "floor" && limit <= r.Lo:
		return fmt.Sprintf("%s is never below %g%s", metric, r.Lo, r.Unit)
	case bound == "ceiling" && limit >= r.Hi:
		return fmt.Sprintf("%s is never above %g%s", metric, r.Hi, r.Unit)
	}
	return ""
}

// unreachable says why no value of the metric's figure meets a limit: a
// floor above the greatest value it takes, a ceiling below the least ("" if
// one can).
func unreachable(metric, bound string, limit float64) string {
	r := figureRanges[metric]
	switch {
	case bound == "floor" && limit > r.Hi:
		return fmt.Sprintf("%s is never above %g%s", metric, r.Hi, r.Unit)
	case bound == "ceiling" && limit < r.Lo:
		return fmt.Sprintf("%s is never below %g%s", metric, r.Lo, r.Unit)
	}
	return ""
}

// checkThreshold refuses a fixed limit its figure cannot cross, or cannot
// meet (a gate that always fails is as false as one that always passes).
func checkThreshold(c GateCheck) (bound, msg string) {
	tol, bound := c.Floor, "floor"
	if c.Ceiling != nil {
		tol, bound = c.Ceiling, "ceiling"
	}
	if tol.Kind() != TolThreshold {
		return bound, ""
	}
	if why := uncrossable(c.Metric, bound, *tol.Threshold); why != "" {
		return bound, fmt.Sprintf("a %s at %g: %s, so this check can never fail (give a limit the figure can cross)", bound, *tol.Threshold, why)
	}
	if why := unreachable(c.Metric, bound, *tol.Threshold); why != "" {
		return bound, fmt.Sprintf("a %s at %g: %s, so this check can never pass (give a limit the figure can meet)", bound, *tol.Threshold, why)
	}
	return bound, ""
}

// CheckLimits refuses, at its line, a check whose limit against the
// baseline b no value of the figure can cross: the mean's limit (the
// baseline mean moved by the spread), or, with paired, every seed's own
// limit. Such a check reads as one and can never fail (a throughput floor
// at −70.8 jobs/h). A figure the baseline lacks is left to the verdict
// (NO BASELINE).
func (g *Gate) CheckLimits(b GateBaseline) error {
	for i, c := range g.Spec.Checks {
		tol, bound, sign := c.Floor, "floor", -1.0
		if c.Ceiling != nil {
			tol, bound, sign = c.Ceiling, "ceiling", 1.0
		}
		if tol.Kind() == TolThreshold {
			continue // checked at load
		}
		lanes := c.Lanes
		if len(lanes) == 0 {
			lanes = []string{AllLanes}
		}
		for _, s := range g.Spec.Scenarios {
			if len(c.Scenarios) > 0 && !slices.Contains(c.Scenarios, s.Name) {
				continue
			}
			for _, lane := range lanes {
				f, ok := b.figure(s.Name, lane, c.Metric)
				if !ok {
					continue
				}
				bad := func(format string, args ...any) error {
					return fieldErr(g.File, g.root, fmt.Sprintf("checks[%d].%s", i, bound),
						"%s of scenario %q on lane %q: %s, so this check can never fail (give a tighter tolerance, paired alone, or leave this lane or scenario out of the check)",
						c.Metric, s.Name, lane, fmt.Sprintf(format, args...))
				}
				if tol.Kind() == TolSpread {
					limit := f.Mean + sign*tol.Margin(f)
					if why := uncrossable(c.Metric, bound, limit); why != "" {
						return bad("the %s is %.4g (baseline %.4g, %s) and %s", bound, limit, f.Mean, cmpOr(*tol), why)
					}
				}
				if tol.Paired != nil && len(f.Values) > 0 {
					crossable := false
					for _, v := range f.Values {
						if uncrossable(c.Metric, bound, v+sign*tol.PairedMargin(v)) == "" {
							crossable = true
						}
					}
					if !crossable {
						return bad("every seed's own %s (its baseline value moved by paired %g) is out of reach: %s", bound, *tol.Paired, uncrossable(c.Metric, bound, f.Values[0]+sign*tol.PairedMargin(f.Values[0])))
					}
				}
			}
		}
	}
	return nil
}
