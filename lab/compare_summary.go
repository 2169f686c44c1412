package lab

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evalsched/lab/results"
)

// CompareSummary assembles sim compare's summary.json from its runs, seed by
// seed (runsBySeed[k] holds the arms of seed first+k, the baseline first):
// the first seed's runs and comparison, and over more than one seed each
// arm's multipliers against the baseline. variants says the arms are
// scenario variants (summary.variants is then written). One function for
// a whole run and for merging the shards of one, so the two agree byte for
// byte.
func CompareSummary(scenario string, first uint64, runsBySeed [][]results.Run, variants bool, inv *results.Invocation) results.Summary {
	runs := runsBySeed[0]
	n, seeds := len(runs), len(runsBySeed)
	s := results.Summary{Schema: "evalsched-summary", SchemaVersion: results.SchemaVersion,
		Scenario: scenario, Seed: first, Runs: runs, Comparison: results.Compare(runs[0], runs[1]), Invocation: inv}
	for k := 0; k < seeds && seeds > 1; k++ {
		s.Seeds = append(s.Seeds, first+uint64(k))
	}
	for i := 1; i < n; i++ {
		// Over seeds, the lanes and then the group rows ("(all)", and
		// "(grading)" when there are grading lanes), as the terminal table
		// and the headline give them.
		var perSeed, withGroups [][]results.LaneComparison
		for k := 0; k < seeds; k++ {
			lanes := results.Compare(runsBySeed[k][0], runsBySeed[k][i])
			perSeed = append(perSeed, lanes)
			withGroups = append(withGroups, append(slices.Clip(lanes), results.GroupComparisons(runsBySeed[k][0], runsBySeed[k][i])...))
		}
		vc := results.VariantComparison{Baseline: runs[0].Policy, Variant: runs[i].Policy, Comparison: perSeed[0]}
		if seeds > 1 {
			vc.MultiplierAcrossSeeds = results.MultiplierCI(withGroups)
		}
		if i == 1 {
			s.MultiplierAcrossSeeds = vc.MultiplierAcrossSeeds
		}
		if variants {
			s.Variants = append(s.Variants, vc)
		}
	}
	return s
}

// CompareShard is what one shard of `sim compare --seeds K --shard I/N`
// keeps in its directory (compare-shard.json): its seeds' runs, whole, so
// that MergeCompare can assemble the summary an unsharded run writes.
type CompareShard struct {
	Schema   string `json:"schema"` // "evalsched-compare-shard"
	Shard    string `json:"shard"`
	Scenario string `json:"scenario"`
	// Digest is the scenario's (scenario.Scenario.Digest) and the arms':
	// shards of two scenarios that share a name are not one compare.
	Digest     string              `json:"digest"`
	First      uint64              `json:"first_seed"`
	Seeds      int                 `json:"seeds"`
	Variants   bool                `json:"variants"`
	Invocation *results.Invocation `json:"invocation"`
	// Runs maps the seed offset k (seed first+k) to that seed's arms.
	Runs map[int][]results.Run `json:"runs"`
}

// CompareShardFile is the name of a compare shard's record.
const CompareShardFile = "compare-shard.json"

// IsCompareShard reports whether dir holds a compare shard.
func IsCompareShard(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, CompareShardFile))
	return err == nil
}

// armsOf names a shard's arms: its runs' policies, in order (the same for
// every seed of one compare).
func armsOf(cs CompareShard) string {
	for _, runs := range cs.Runs {
		names := make([]string, len(runs))
		for i, r := range runs {
			names[i] = r.Policy
		}
		return "policies " + strings.Join(names, ", ")
	}
	return "no runs"
}

// sourceOf names a shard's job source: the scenario's generator, or the
// trace as given (the digest does not cover it).
func sourceOf(cs CompareShard) string {
	if cs.Invocation == nil || cs.Invocation.Trace == "" {
		return "the generator"
	}
	s := "--trace " + cs.Invocation.Trace
	if cs.Invocation.SkipInvalid {
		s += " --skip-invalid"
	}
	return s
}

// MergeCompare merges the shard directories of one sharded compare into
// dir: summary.json assembled as the unsharded run does, series.csv and
// batches.csv from the shard that ran the first seed.
func MergeCompare(dir string, shards []string) error {
	if err := results.CheckOutDir(dir); err != nil { // before the shards are read
		return err
	}
	if err := checkMergeDirs(dir, shards); err != nil {
		return err
	}
	var all []CompareShard
	firstDir := ""
	for _, d := range shards {
		var cs CompareShard
		if err := results.ReadJSONFile(filepath.Join(d, CompareShardFile), &cs); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("merge: %s holds no %s: not a shard of this compare", d, CompareShardFile)
			}
			return err
		}
		if cs.Schema != "evalsched-compare-shard" || cs.Seeds < 1 || cs.Seeds > MaxSeeds {
			return fmt.Errorf("merge: %s: not a compare shard (schema %q, %d seeds)", filepath.Join(d, CompareShardFile), cs.Schema, cs.Seeds)
		}
		if len(all) > 0 && (cs.Scenario != all[0].Scenario || cs.Digest != all[0].Digest || cs.First != all[0].First || cs.Seeds != all[0].Seeds || cs.Variants != all[0].Variants) {
			return fmt.Errorf("merge: %s and %s hold different compares (scenario %s %s, and %s %s)", shards[0], d, all[0].Scenario, all[0].Digest, cs.Scenario, cs.Digest)
		}
		if len(all) > 0 {
			if a, b := armsOf(all[0]), armsOf(cs); a != b {
				return fmt.Errorf("merge: %s and %s hold different compares (%s, and %s)", shards[0], d, a, b)
			}
			if a, b := sourceOf(all[0]), sourceOf(cs); a != b {
				return fmt.Errorf("merge: %s and %s hold different compares (jobs from %s, and %s)", shards[0], d, a, b)
			}
		}
		for k, runs := range cs.Runs {
			if len(runs) < 2 {
				return fmt.Errorf("merge: %s: seed offset %d holds %d runs, want the baseline and at least one arm", filepath.Join(d, CompareShardFile), k, len(runs))
			}
		}
		if _, ok := cs.Runs[0]; ok {
			firstDir = d
		}
		all = append(all, cs)
	}
	if len(all) == 0 {
		return errors.New("merge: name the shard directories")
	}
	bySeed := make([][]results.Run, all[0].Seeds)
	for _, cs := range all {
		for k, runs := range cs.Runs {
			if k < 0 || k >= len(bySeed) || bySeed[k] != nil {
				return fmt.Errorf("merge: seed offset %d is missing or given twice", k)
			}
			bySeed[k] = runs
		}
	}
	if i := slices.IndexFunc(bySeed, func(r []results.Run) bool { return r == nil }); i >= 0 {
		if split, err := ParseShard(all[0].Shard); err == nil && split.N > 1 {
			return fmt.Errorf("merge: no shard ran seed %d: shard %d/%d did not run (give every shard's directory, or run sim compare --seeds %d --shard %d/%d)",
				all[0].First+uint64(i), i%split.N, split.N, all[0].Seeds, i%split.N, split.N)
		}
		return fmt.Errorf("merge: no shard ran seed %d (give every shard's directory)", all[0].First+uint64(i))
	}
	// Every shard's folder is read whole (checked as any output folder is,
	// its row files against their rows and digests) before anything is
	// written; the first seed's row files become the merged folder's, with
	// their records.
	var files []results.RowFile
	for _, d := range shards {
		o, err := results.LoadOutputs(d)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		if d == firstDir {
			files = o.Summary.Files
		}
	}
	s := CompareSummary(all[0].Scenario, all[0].First, bySeed, all[0].Variants, all[0].Invocation)
	s.Files = files
	stage, err := results.StageDir(dir)
	if err != nil {
		return err
	}
	if err := stage.LinkFrom(firstDir, "series.csv", "batches.csv"); err != nil {
		stage.Abort()
		return err
	}
	if err := results.WriteJSON(filepath.Join(stage.Dir, "summary.json"), s); err != nil {
		stage.Abort()
		return err
	}
	h := results.NewHeadline(all[0].Scenario, all[0].First, bySeed)
	if err := results.WriteJSON(filepath.Join(stage.Dir, results.HeadlineFile), h); err != nil {
		stage.Abort()
		return err
	}
	return stage.Commit()
}
