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
	var b strings.Builder
	canonical(&b, s.root, 0)
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:12])
}

func canonical(b *strings.Builder, n *yaml.Node, depth int) {
	if n == nil {
		b.WriteString("~")
		return
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			canonical(b, c, depth)
		}
	case yaml.MappingNode:
		idx := make([]int, 0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			idx = append(idx, i)
		}
		slices.SortStableFunc(idx, func(x, y int) int { return strings.Compare(n.Content[x].Value, n.Content[y].Value) })
		b.WriteString("{")
		for _, i := range idx {
			if depth == 0 && n.Content[i].Value == "variants" {
				continue // a run of the scenario does not depend on its variants
			}
			b.WriteString(strconv.Quote(n.Content[i].Value))
			b.WriteString(":")
			canonical(b, n.Content[i+1], depth+1)
			b.WriteString(",")
		}
		b.WriteString("}")
	case yaml.SequenceNode:
		b.WriteString("[")
		for _, c := range n.Content {
			canonical(b, c, depth+1)
			b.WriteString(",")
		}
		b.WriteString("]")
	case yaml.AliasNode:
		canonical(b, n.Alias, depth)
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
	var b strings.Builder
	canonical(&b, s.root, 1)
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:12])
}
