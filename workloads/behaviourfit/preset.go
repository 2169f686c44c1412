package behaviourfit

import (
	"embed"
	"fmt"
	"slices"
	"strings"
)

//go:embed presets/*.yaml
var presets embed.FS

// Presets are the names of the embedded behaviour presets.
func Presets() []string {
	entries, _ := presets.ReadDir("presets")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	slices.Sort(names)
	return names
}

// Preset is an embedded behaviour preset's YAML (a behaviour class's keys,
// its assumptions in comments).
func Preset(name string) ([]byte, error) {
	b, err := presets.ReadFile("presets/" + name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("unknown behaviour preset %q (have: %s)", name, strings.Join(Presets(), ", "))
	}
	return b, nil
}
