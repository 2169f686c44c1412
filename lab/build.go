package lab

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/internal/yamltree"
	"github.com/evalsched/lab/scenario"
	"go.yaml.in/yaml/v3"
)

// overlayLine is added to the line of every node an overlay brings into a
// scenario, so an error the merged scenario gives on one of them is known
// to be the gate, sweep or tune file's (at the line less overlayLine), not
// the scenario file's: a value is blamed on the line that sets it.
const overlayLine = 1 << 26

// BuildPoint builds a point's scenario: the file (or embedded one), its
// variant if named, the overlay merged on, the policy checked, with the
// default run budget. cache holds the scenarios read so far, by
// reference. An error on a value the point's file set (an overlay, a grid
// value, a tune setting) names that file and line.
func BuildPoint(p PointSpec, cache map[string]*scenario.Scenario) (*scenario.Variant, error) {
	sc, ok := cache[p.Scenario]
	if !ok {
		var err error
		if sc, err = scenario.LoadScenario(p.Scenario); err != nil {
			return nil, err
		}
		cache[p.Scenario] = sc
	}
	policy := p.Policy
	if p.Variant != "" {
		v, err := sc.Variant(p.Variant)
		if err != nil {
			return nil, err
		}
		sc, policy = v.Scenario, v.Policy
	}
	if policy == "" {
		policy = scenario.DefaultVariantPolicy
	}
	for _, prm := range p.Settings {
		steps, err := scenario.SplitKey(prm.Key)
		if err == nil {
			err = sc.CheckItems(steps)
		}
		if err != nil && prm.Where != "" {
			return nil, fmt.Errorf("%s: %w", prm.Where, err)
		} else if err != nil {
			return nil, fmt.Errorf("point %s (%s): %s: %w", p.ID, p.Name, prm.Key, err)
		}
	}
	if p.Overlay != nil {
		marked := yamltree.Clone(p.Overlay)
		markLines(marked)
		var err error
		if sc, err = sc.WithOverlay(marked); err != nil {
			return nil, blame(p, err)
		}
	}
	if err := scenario.CheckPolicy(policy, sc); err != nil {
		return nil, err
	}
	if err := sc.SetBudget(scenario.DefaultBudget, false); err != nil {
		return nil, err
	}
	return &scenario.Variant{Name: p.ID, Policy: policy, Scenario: sc}, nil
}

// markLines adds overlayLine to the line of every node that has one.
func markLines(n *yaml.Node) {
	if n.Line > 0 {
		n.Line += overlayLine
	}
	for _, c := range n.Content {
		markLines(c)
	}
}

// PointWarnings is sc.Warnings for the scenario BuildPoint built from p: a
// setting its overlay brought in (a grid value, a tune's setting) is named
// at the line of p's file that set it, not at a line of the scenario.
func PointWarnings(p PointSpec, sc *scenario.Scenario) []string {
	return sc.WarningsAt(func(line int) (string, int) {
		file, line, _ := written(p, sc.File(), line)
		return file, line
	})
}

// written is where a node of the scenario BuildPoint built from p, at line
// of file in the merged tree, was written: an overlay's node (its line past
// overlayLine) at its line of p's file (byOverlay), or with no line when p
// has no file; any other node where it is.
func written(p PointSpec, file string, line int) (_ string, _ int, byOverlay bool) {
	switch {
	case line <= overlayLine:
		return file, line, false
	case p.File != "":
		return p.File, line - overlayLine, true
	}
	return file, 0, false
}

// blame moves an error on an overlay's node to the file that wrote it.
func blame(p PointSpec, err error) error {
	var fe *field.Error
	if !errors.As(err, &fe) {
		return fmt.Errorf("point %s (%s): %w", p.ID, p.Name, err)
	}
	out := *fe
	var byOverlay bool
	if out.File, out.Line, byOverlay = written(p, out.File, out.Line); byOverlay {
		out.Msg += " (set by the overlay of " + pointWhat(p) + ")"
		return &out
	}
	if p.Name != "" {
		out.Msg += " (in " + pointWhat(p) + ")"
	}
	return &out
}

func pointWhat(p PointSpec) string {
	if p.Name != "" {
		return fmt.Sprintf("%q", p.Name)
	}
	return p.ID
}

// Digest identifies what a point runs: its policy and its scenario after
// variant and overlay (scenario.Scenario.Digest).
func Digest(v *scenario.Variant) string {
	sum := sha256.Sum256([]byte(v.Policy + "\n" + v.Scenario.Digest()))
	return hex.EncodeToString(sum[:12])
}
