package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Digest is a hash of the scenario as it runs: its YAML tree after any
// variant or overlay was merged, in a canonical form (mapping keys sorted,
// comments, layout, quoting and tags dropped), so a change of any value
// changes it and a change of layout does not. A gate's baseline records it
// to tell that the figures it holds were measured on this scenario. Files
// the scenario names (a request trace) are named, not read.
func (s *Scenario) Digest() string {
	return digest(s.root, 0, "")
}

// RunDigest is Digest for a run of the named policy: for a built-in
// policy that reads, of the policies block, only its own settings and the
// guards (fixed-lane: policies.fixed_lane; scheduler: policies.scheduler;
// inspect: policies.inspect; registerBuiltin), the other policies' settings
// are left out, since its runs do not read them; for any other policy it is
// Digest. Two scenarios with one RunDigest give a run of that policy the
// same outputs on every seed, so one run serves both (lab.Baselines).
func (s *Scenario) RunDigest(policy string) string {
	e, _, _ := lookup(policy)
	return digest(s.root, 0, e.own)
}

// digest hashes the canonical form of root; own, when set, keeps only
// that block and guards of the top-level policies mapping.
func digest(root *yaml.Node, depth int, own string) string {
	var b strings.Builder
	canonical(&b, root, depth, own)
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:12])
}

// canonical writes n in canonical form. own, when set, is the one
// policies block (with guards) kept under a top-level policies key: it
// applies to that key's mapping only.
func canonical(b *strings.Builder, n *yaml.Node, depth int, own string) {
	if n == nil {
		b.WriteString("~")
		return
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			canonical(b, c, depth, own)
		}
	case yaml.MappingNode:
		idx := make([]int, 0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			idx = append(idx, i)
		}
		slices.SortStableFunc(idx, func(x, y int) int { return strings.Compare(n.Content[x].Value, n.Content[y].Value) })
		b.WriteString("{")
		for _, i := range idx {
			key := n.Content[i].Value
			if depth == 0 && key == "variants" {
				continue // a run of the scenario does not depend on its variants
			}
			if own != "" && depth == 1 && key != own && key != "guards" {
				continue // another policy's settings (RunDigest)
			}
			b.WriteString(strconv.Quote(key))
			b.WriteString(":")
			keep := ""
			if depth == 0 && key == "policies" {
				keep = own
			}
			canonical(b, n.Content[i+1], depth+1, keep)
			b.WriteString(",")
		}
		b.WriteString("}")
	case yaml.SequenceNode:
		b.WriteString("[")
		for _, c := range n.Content {
			canonical(b, c, depth+1, "")
			b.WriteString(",")
		}
		b.WriteString("]")
	case yaml.AliasNode:
		canonical(b, n.Alias, depth, own)
	default:
		if n.Tag == "!!null" {
			b.WriteString("~")
			return
		}
		b.WriteString(strconv.Quote(n.Value))
	}
}

// DigestWithVariants is Digest with the scenario's variants included: a
// compare of variants depends on them.
func (s *Scenario) DigestWithVariants() string {
	return digest(s.root, 1, "")
}
