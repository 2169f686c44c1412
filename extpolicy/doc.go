// Package extpolicy runs a scheduling policy in another process, in any
// language, behind the policies.Policy contract: the lab starts the
// process, speaks the policy protocol with it over its stdin and stdout
// (newline-delimited JSON, docs/reference/policy-protocol.md, schema
// docs/reference/policy-protocol.schema.json) and turns its replies into
// Plans.
//
// Messages flow one way until a decision: every Enqueue and Finished is
// written to the process's stdin as it happens, without a reply; Decide
// writes a decide message carrying what the State offers (and the optional
// QuotaState and LatencySignals) and waits for the one plan reply. A
// decision is one round trip, whatever the number of events before it.
//
// Everything the process does wrong is the lab's to report, as an error
// naming the message and the decision time: failing to start or to shake
// hands, exiting, answering later than the per-decision timeout, a line
// that is not a protocol message, a tick under MinTick, a null or
// out-of-range number, a start of a job that is not waiting, a plan past
// the free containers it was offered or past its own limits, a limit list
// that does not fit the model catalogue. The first error stops
// the policy (Err, policies.Fallible): it starts nothing more, and the
// caller stops the run. The process's stderr is passed through, each line
// prefixed with the policy's name.
//
// The process runs in a process group of its own: whatever of it is left
// when it is done with (a process lingering after closing its stdout, a
// child holding its pipes) is killed with the group after at most the
// timeout, and KillAll ends every group for a lab stopped by a signal.
//
// The adapter reads and writes the process's stdin and stdout with
// deadlines, on the caller's goroutine; the goroutines it causes are
// os/exec's, copying stderr through the prefix, and one waiting for the
// process's exit while it is ended. It measures the timeout
// on the wall clock, the one place it reads it; decisions themselves take
// the time passed in.
package extpolicy
