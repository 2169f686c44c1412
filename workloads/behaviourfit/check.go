package behaviourfit

import (
	"bytes"

	"github.com/evalsched/lab/workloads"
	"go.yaml.in/yaml/v3"
)

// Check decodes a behaviour YAML strictly (unknown keys refused, as a
// scenario's are) and validates it.
func Check(b []byte) error {
	var bh workloads.Behaviour
	if err := yamlStrict(b, &bh); err != nil {
		return err
	}
	bh.ApplyDefaults()
	return bh.Validate("behaviour")
}

func yamlStrict(b []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	return dec.Decode(v)
}
