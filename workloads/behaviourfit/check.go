package behaviourfit

import (
	"github.com/evalsched/lab/internal/yamltree"
	"github.com/evalsched/lab/workloads"
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

// yamlStrict decodes one YAML document strictly, its errors at the line
// and field path (yamltree).
func yamlStrict(b []byte, v any) error {
	root, err := yamltree.Parse(b, "a behaviour")
	if err != nil {
		return err
	}
	return yamltree.Decode(b, root, v)
}
