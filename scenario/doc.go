// Package scenario is what a run is given: the scenario types and their
// defaults, the strict YAML reader, the checks and limits, variants and
// overlays, the dotted keys of sweeps and tunes, the run budget, the
// embedded scenarios, and the registry of policies by name.
//
// A scenario is strict YAML checked against the Scenario type before it is
// decoded (scenario_yaml.go), so every error names its file, line and
// field; defaults and checks are in scenario_check.go and
// scenario_limits.go. A variant (and a sweep's, gate's or tune's overlay)
// is merged onto it (variant.go): mappings key by key, named lists item by
// item on the name; an added organisation or key that no model uses is
// refused as a misspelt name. SplitKey (overlay_key.go) reads the dotted
// keys of sweeps and tunes against the same type (names with dots, list
// items by name) and WithParams (overlay_params.go) turns dotted settings
// into one overlay. Digest (digest.go) hashes a scenario as it runs, in
// a canonical form, for what a gate baseline or a compare shard pins.
//
// Policies are chosen by name through RegisterPolicy / NewPolicy
// (policy.go): a name maps to a factory that builds the policy from the
// scenario's settings and model catalogue.
package scenario
