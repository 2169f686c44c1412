// Package workloads makes the jobs a run simulates.
//
// The synthetic Generator builds accounts → projects → batches → jobs: a
// priority tier may be set at each level (inherited downward by the
// policies), batch sizes come from a distribution (10 to 50,000 jobs),
// batches arrive as a Poisson stream plus scheduled bursts, small deliveries
// as a second such stream, and each batch picks a model (hot models share a
// fixed fraction, evenly or by weight; the rest follow a Zipf law). The
// generator is lazy: it holds only the batch being emitted and each
// process's next arrival.
//
// A process's Profile (profile.go) shapes its rate over the week: relative
// weights per hour of day and per weekday, each divided by its mean so
// rate_per_hour stays the weekly mean, read on a week clock that shows Start
// (from Monday 00:00) at virtual time 0. Arrivals are a non-homogeneous
// Poisson process drawn by thinning: exponential gaps at the peak rate,
// each candidate kept with probability rate(t)/peak, all from the arrivals
// stream, with no draw when the ratio is 1 — so a flat profile gives exactly
// the arrivals of none.
//
// A job's agent loop is described by a Behaviour class and driven by an
// Agent value: heavy-tailed number of turns, parallel calls per turn with an
// optional phase switch, input tokens growing with the conversation, output
// tokens and tool time from distributions, an optional chained grading job.
// Every draw of turn t comes from a stream seeded by (job seed, t) — its
// calls' — or by (job seed, t | 1<<40) — its tool step's, drawn when the
// turn starts and applied when its last call is answered — so a job behaves
// the same whatever the policy does around it.
//
// Job traces (trace_*.go, docs/reference/traces.md) are files of jobs, JSON Lines or
// CSV, versioned per record: TraceWriter/WriteTrace write any Source,
// TraceReader streams one back as a Source (one record in memory), and
// ValidateTrace lists every bad record as FILE:LINE: field: problem. A job
// names a behaviour class and seed (a generated trace replays identically)
// or carries an explicit CallPlan, which the Agent follows call by call.
//
// Every validation error (of a workload config, a behaviour, a distribution,
// a trace record) is an *internal/field.Error locating the field, read with
// errors.As; TraceError is that type. Validation compiles each Dist once into
// a sampler (dist_sampler.go): a kind code and the constants its draw needs,
// so a draw parses nothing and calls its PCG source directly.
//
// Public request traces (requests.go) — the Azure LLM inference trace and the
// Mooncake trace — stream as CallSources for open-loop replay (speed-up,
// offset, loop, horizon), and serve as empirical token-length distributions
// (Dist kind empirical).
package workloads
