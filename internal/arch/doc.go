// Package arch writes down which of the lab's packages may import which,
// and its test checks every Go file of the module against it.
//
// The arrows (a package may import the ones listed, and internal/*):
//
//	cmd/sim   → cli: the sim command's main, one line
//	cli       → lab, predict, studies, report, sim, scenario, results, workloads, extpolicy, policies
//	studies   → predict, sim, scenario, results: the generated studies of docs/studies
//	predict   → sim, scenario, results, workloads, policies: reading, fitting and
//	            predicting a real run (Inspect logs)
//	extpolicy → policies: a policy in another process (the policy protocol)
//	lab       → sim, scenario, results
//	report    → results
//	sim       → scenario, results, policies, workloads
//	scenario  → policies, workloads
//	results   → (internal only)
//	workloads → (internal only)
//	policies  → (internal only): production code, see policies/imports_test.go
//
// Test-support packages (scenario/scenariotest, sim/simtest) may import what
// their parent may, and the parent itself; only tests import them. A
// sub-package not listed here (workloads/agentlog, say) may import its
// parent and what its parent may.
//
// sim links no plotting library, optimiser or HTML templating: what draws
// and searches lives in report and lab.
package arch
