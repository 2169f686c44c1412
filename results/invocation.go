package results

// Invocation is how sim was asked for an output directory: what, besides
// the seed, decides its results. The report's reproduce line is made from
// it (ReproduceCommand).
type Invocation struct {
	Command string `json:"command"` // "run" or "compare"
	// Scenario is the --scenario value as given: a YAML file's path
	// (relative to the directory sim ran in) or an embedded scenario's name.
	Scenario    string `json:"scenario"`
	Policy      string `json:"policy,omitempty"` // run only
	Seeds       int    `json:"seeds,omitempty"`  // compare --seeds, when more than 1
	Trace       string `json:"trace,omitempty"`  // --trace, as given
	SkipInvalid bool   `json:"skip_invalid,omitempty"`
	// Variants: compare --variant, in order (the first is the baseline).
	Variants []string `json:"variants,omitempty"`
	// Policies: compare --policy, in order (the first is the baseline).
	Policies []string `json:"policies,omitempty"`
}
