// Package sim is the lab's virtual-clock engine and the simulated world:
// containers, the LLM gateway, providers with rolling-window quotas, and
// agent-loop jobs, driven by any policies.Policy through the same interface a
// real service would use.
//
// # Engine
//
// Time is an integer number of microseconds. Events sit in one radix heap
// (virtual time never goes back, so an event is filed by the highest bit in
// which its time differs from the last time taken out) that gives them out
// in (time, scheduling order) order, so events at equal times fire in the
// order they were scheduled, identically every run. An event is a small
// value (kind and two int32 payloads) dispatched through one Handler
// interface call: no goroutine or closure per event, and no allocation per
// event once the buckets and slot slab have grown. Timers are cancellable
// through generation-checked handles (the queued entry is skipped when it
// comes up).
//
// # World
//
// World is the Handler. A job's life: arrival (handed to the policy) →
// admission by the policy (a container is taken) → container start-up →
// turns of parallel calls, each call queued FIFO at its model's gateway lane,
// sent while the lane's in-flight limit allows, checked against the
// organisation's quotas (a try must fit whole, or with admission
// "under_limit" the windows must be below their limits; 429 → backoff →
// back to the queue), served by a
// provider stream → a tool step → the next turn → completion (container
// released; a grading job may follow). Job arrivals are pulled lazily from a
// workloads.Source, one ahead.
//
// Every state change that something measures is one typed observation
// (observe.go: a job arrived, started, ended; a call was made, queued,
// tried with the provider's verdict, served, answered, given up; ...),
// emitted once where the world makes the change and consumed, right then,
// by the observers: the recorder (recorder*.go, fairness*.go), the tracer
// (spans.go, with Options.Spans) and the event log (eventlog.go, with
// Options.Log). The data path calls no observer itself, so a call's path
// (calls.go) reads as the changes it makes; observers read the world as the
// change left it and never change it (I13).
//
// Measurements are kept as the run goes: time integrals of queue depth,
// busy streams and running jobs over the measurement window, and per job a
// split of its time into queued, start-up, gateway wait, LLM service and
// tool (20 bytes a completed job, the only per-job state kept once a job
// is done). Series and batch-progress rows go to a results.RowSink as they
// are made (World.StreamRows; by default they are kept in memory), batch
// progress only at change points; a batch is pruned from the books when its
// last job is done. Options.Log records every job and call event so tests
// check conservation and quotas from the data rather than from counters.
// Options.Spans receives each job as it ends, with its calls' tries and
// its tool steps (spans.go; the --otlp output); unset, the world keeps
// nothing for it and pays a flag check per observation.
// ExecuteAll runs several specs in parallel, as many at once as the cores
// and the memory budget allow (run_gate.go), and summarises each as soon as
// it ends. When a core frees it starts a run of the class (a compare's arm)
// whose runs have taken longest so far (run_order.go), so that the costly
// arm's seeds do not wait behind the cheap arm's at the end.
//
// Scenarios (what a run is given) are package scenario's.
//
// # Randomness
//
// Each subsystem draws from its own stream derived from the seed
// (workloads.Stream): arrivals, gateway backoff, and per-job behaviour, which
// is reseeded from the job's own seed at each turn. A policy change therefore
// never changes the job stream or what any job does.
package sim
