package predict

import (
	"fmt"
	"strings"

	"github.com/evalsched/lab/scenario"
	"go.yaml.in/yaml/v3"
)

// costPerSample bills the process's recorded tokens at prices (a YAML flow
// mapping of scenario.Prices, dollars per million tokens) per sample.
func costPerSample(p *Process, prices string) (float64, error) {
	var pr scenario.Prices
	dec := yaml.NewDecoder(strings.NewReader(prices))
	dec.KnownFields(true)
	if err := dec.Decode(&pr); err != nil {
		return 0, fmt.Errorf("--prices %q: %v (want e.g. {input: 2.5, output: 10, cache_read: 1.25, cache_write: 3.125})", prices, err)
	}
	var usd float64
	for _, s := range p.Samples {
		for _, t := range s.Turns {
			for _, c := range t.Calls {
				plain := c.In - c.CacheRead - c.CacheWrite
				usd += (float64(plain)*pr.Input + float64(c.CacheRead)*pr.CacheRead + float64(c.CacheWrite)*pr.CacheWrite + float64(c.Out)*pr.Output) / 1e6
			}
		}
	}
	return round(usd / float64(len(p.Samples))), nil
}
