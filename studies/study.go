package studies

import (
	"fmt"
	"slices"
	"strings"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/sim"
	"go.yaml.in/yaml/v3"
)

// A Study writes one file of docs/studies from runs it makes itself: every
// number in it is computed from those runs (or read from the scenario), so
// the file can be regenerated and checked against its generator.
type Study struct {
	Name string
	// Summary is one line for `sim study` with no name.
	Summary string
	// File is where the study is kept, from the repository's root.
	File string
	// Seeds says whether --scenario, --seed and --seeds apply (baseline);
	// a study without them runs what its own method fixes.
	Seeds bool
	// Cheap studies (a second or so of CPU) are golden-checked by a Go
	// test; the others by `sim study --check NAME` in .ci/run.
	Cheap bool
	// Generate writes the study's Markdown.
	Generate func(o StudyOptions) (string, error)
}

// StudyOptions are the settings a study takes from the command line (only
// a Study with Seeds reads them).
type StudyOptions struct {
	Scenario string
	First    uint64
	Seeds    int
	// Root is the repository's root, where a study finds the files it
	// reads ("": the working directory).
	Root string
}

// Studies is the registry, in the order `sim study` lists them.
var Studies = []Study{
	{Name: "baseline", Summary: "the old system's measured state and the multipliers over seeds beside the source's table",
		File: "docs/studies/baseline.md", Seeds: true, Generate: GenerateBaselineStudy},
	{Name: "incident-0214", Summary: "the 02:14 incident and its remedies: production's outage, the evaluation's burn, each remedy on the identical streams",
		File: "docs/studies/incident-0214.md", Cheap: true, Generate: GenerateIncidentStudy},
	{Name: "quota-bound-lanes", Summary: "the scheduler on lanes bound by a quota shared with production, against fixed-lane, over ten seeds",
		File: "docs/studies/quota-bound-lanes.md", Generate: GenerateQuotaBoundStudy},
	{Name: "meters", Summary: "what changes when the quotas are metered as the providers meter them (today's meter against the presets)",
		File: "docs/studies/meters.md", Generate: GenerateMetersStudy},
	{Name: "replay", Summary: "the real Inspect runs predicted from their logs against what they recorded, and what they would have taken at 4, 10 and 32 connections, adaptive and under the scheduler",
		File: "docs/studies/replay.md", Generate: GenerateReplayStudy},
}

// StudyByName finds a study in the registry.
func StudyByName(name string) (Study, error) {
	i := slices.IndexFunc(Studies, func(s Study) bool { return s.Name == name })
	if i < 0 {
		return Study{}, fmt.Errorf("no study %q (have %s)", name, strings.Join(StudyNames(), ", "))
	}
	return Studies[i], nil
}

// StudyNames lists the registry's names.
func StudyNames() []string {
	var names []string
	for _, s := range Studies {
		names = append(names, s.Name)
	}
	return names
}

// studyArm is one run a study makes per seed: a variant of the scenario
// (Variant set), or a policy on the scenario itself.
type studyArm struct {
	Policy  string
	Variant string
	// Overlay, if set, is YAML merged onto the variant's scenario (a
	// setting the study varies), and Label names the arm then.
	Overlay, Label string
}

// runArms runs every arm on every seed of sc (all at once, at most
// GOMAXPROCS at a time) and returns runs[k][a], seed k's run of arm a.
func runArms(sc *scenario.Scenario, arms []studyArm, seeds []uint64) ([][]results.Run, error) {
	return runArmsRows(sc, arms, seeds, nil)
}

// runArmsRows is runArms with rows(k, a), if set, receiving seed k's arm
// a's series rows.
func runArmsRows(sc *scenario.Scenario, arms []studyArm, seeds []uint64, rows func(k, a int) results.RowSink) ([][]results.Run, error) {
	var specs []sim.RunSpec
	for k, seed := range seeds {
		for a, arm := range arms {
			spec := sim.RunSpec{Policy: arm.Policy, Seed: seed, Rows: results.Discard}
			if rows != nil {
				spec.Rows = rows(k, a)
			}
			if arm.Variant != "" {
				v, err := sc.Variant(arm.Variant)
				if err != nil {
					return nil, err
				}
				if arm.Overlay != "" {
					var overlay yaml.Node
					if err := yaml.Unmarshal([]byte(arm.Overlay), &overlay); err != nil {
						return nil, fmt.Errorf("%s: %w", arm.Label, err)
					}
					msc, err := v.Scenario.WithOverlay(&overlay)
					if err != nil {
						return nil, fmt.Errorf("%s: %w", arm.Label, err)
					}
					v = &scenario.Variant{Name: arm.Label, Policy: v.Policy, Scenario: msc}
				}
				spec.Variant = v
			}
			specs = append(specs, spec)
		}
	}
	runs, err := sim.ExecuteAll(sc, specs, nil)
	if err != nil {
		return nil, err
	}
	out := make([][]results.Run, len(seeds))
	for k := range seeds {
		out[k] = runs[k*len(arms) : (k+1)*len(arms)]
	}
	return out, nil
}

// studySeeds is first, first+1, ..., first+k-1.
func studySeeds(first uint64, k int) []uint64 {
	s := make([]uint64, k)
	for i := range s {
		s[i] = first + uint64(i)
	}
	return s
}

// generatedLine is the notice at the top of every generated study.
func generatedLine(command string) string {
	return fmt.Sprintf("Generated by `%s`; do not edit: the command rewrites it, and `sim study --all --check` (or the Go test named in docs/studies/README.md) fails when this file differs from what it writes.\n\n", command)
}
