package scenario

import (
	"fmt"
	"slices"

	"github.com/evalsched/lab/internal/yamltree"
	"github.com/evalsched/lab/policies"
)

// Some scheduler settings are read only by some controllers: a scenario,
// overlay, variant, sweep or tune that sets one under a controller that does
// not read it changes nothing (a sweep over it runs the same simulation at
// every value). Warnings names each such setting the scenario's YAML sets.

// depthRuleReaders are the controllers whose depth rule reads each setting;
// every controller also reads step and step_mode to size the cut after
// reject_lower_after ticks of 429s, unless ignore_quota is set.
var depthRuleReaders = map[string][]policies.ControllerKind{
	"step":      {policies.ControllerStep, policies.ControllerAIMD, policies.ControllerBands},
	"step_mode": {policies.ControllerStep},
}

// Warnings are the settings the scenario sets (in its file, or through an
// overlay or variant merged onto it) that its scheduler controller does not
// read, or reads only in the 429 cut, each naming the setting, where it is
// set (the scenario's file and the line of its node) and why.
func (s *Scenario) Warnings() []string { return s.WarningsAt(nil) }

// WarningsAt is Warnings with where each setting is set given by at, from
// the line of its node in the merged tree: a file and a line there (0: the
// file alone). An overlay's nodes keep the lines of the file that wrote
// them, which the caller knows (lab.BuildPoint marks them). nil is the
// scenario's file and the node's line.
func (s *Scenario) WarningsAt(at func(line int) (file string, fileLine int)) []string {
	if s.root == nil {
		return nil
	}
	if at == nil {
		at = func(line int) (string, int) { return s.file, line }
	}
	cfg := s.Policies.Scheduler
	var out []string
	for _, key := range []string{"step", "step_mode"} {
		path := "policies.scheduler." + key
		if !yamltree.Has(s.root, path) || slices.Contains(depthRuleReaders[key], cfg.Controller) {
			continue
		}
		file, line := at(yamltree.Line(s.root, path))
		where := file
		if line > 0 {
			where = fmt.Sprintf("%s:%d", file, line)
		}
		if cfg.IgnoreQuota {
			out = append(out, fmt.Sprintf("%s: %s has no effect: the %s controller does not read it, and ignore_quota turns off the 429 cut that would",
				where, path, cfg.Controller))
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s has no effect on the %s controller's depth rule; it only sizes the cut after %d ticks of 429s "+
			"(policies.scheduler.controller: step, aimd or bands reads it)", where, path, cfg.Controller, cfg.RejectLowerAfter))
	}
	return out
}
