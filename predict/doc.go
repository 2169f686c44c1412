// Package predict predicts a real evaluation run from its Inspect logs and
// states the prediction's error against what the logs recorded.
//
// What it takes from the logs is only what the run was given and what each
// sample's own work was: the harness's version and config (Harness: the
// pools' size, max_samples, max_tasks, adaptive connections, a pool per
// model or per provider key, each default cited to inspect_ai's source),
// the samples in the harness's queue order, each sample's turns (calls per
// turn, their input, output and cache tokens; a fan-out only where the log
// shows a call made while another was outstanding), and the time it spent
// between one call's end and its next call (Setup before its first call,
// Gaps between turns, Trailing after its last). Never a sample's or a
// call's recorded start, nor the recorded latency of a call being
// predicted.
//
// Call latency is a model fitted out of sample (Fit): k-fold by sample
// within the run (each sample's calls are predicted by coefficients fitted
// on the other folds' samples) or on other logs (--fit-from). Its target
// is the time a call held its connection — generate() to completion, on
// the calls the log shows taking a connection at once — or, where the log
// does not record it, the provider's time (output.time). Forms tried: a
// mean, a + c·output, a + b·input + c·output, each with a load slope β
// (latency × (1 + β · calls at the provider)) where the log records the
// load; the form is chosen by its held-out error. A call's variation is
// lognormal with the training residuals' spread.
//
// The replay runs the lab's world (sim) with a pool per connection pool
// (the gateway's in-flight limit), providers that never queue, and the
// harness as a policy (policies.Inspect), all samples queued at the
// process's start. Each seed draws every call's latency, resamples each
// fold's training samples (a bootstrap of the coefficients) and draws the
// harness's slot handoff from the other runs' (leave one run out), so the
// 90% interval over seeds holds the latency model's and the harness's
// uncertainty as well as the calls' variation. The figures (Measures) are read off the replay's event
// log exactly as off the logs; their error and whether the recorded value
// falls inside the interval are reported per run and over the runs.
//
// A run is one inspect process: the logs sharing a run_id (one inspect eval
// of several tasks, an eval-set) share their connection pools and are
// replayed together.
package predict
