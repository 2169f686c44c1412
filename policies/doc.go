// Package policies holds the production scheduling policies of the
// evaluation platform: the code that decides which waiting evaluation jobs
// get a container, and how many jobs each model may run at once.
//
// The package is production code. It runs unchanged inside the simulator and
// inside a real service, so it depends on neither: it imports nothing from
// the lab's sim, workloads, results or cmd packages, starts no goroutines,
// keeps no globals in its decision logic and never reads the wall clock. Time
// is an argument of every call.
//
// # The contract
//
// A Policy sits behind small interfaces: State in, Plan out.
//
//   - The caller tells the policy about every job that starts waiting
//     (Enqueue) and every started job that finishes (Finished).
//   - When the policy's Trigger says so (every Tick, or after every event),
//     the caller calls Decide with the current time and a State: the running
//     jobs per model, the gateway queue depth per model with the time that
//     reading was taken, and the number of free containers.
//   - Decide appends the jobs to start to Plan.Start, in order, and may fill
//     Plan.Limits with its per-model running-job limits. The caller starts
//     those jobs; they leave the policy's queue.
//
// The Plan is owned by the caller and reused between calls, so a policy in
// steady state appends without allocating.
//
// # The baseline: fixed lanes
//
// FixedLane is the old design. Named hot models get dedicated lanes, each a
// fixed cap carved out of a global cap; every other model shares what is left.
// Within a lane, first come first served, and a job starts the moment its lane
// has a slot — then holds its container while its calls queue at the gateway.
// Each new lane lowers the ceiling of every other lane, and a 20-job delivery
// waits behind a 5,000-job batch submitted before it.
//
// # The scheduler
//
// Scheduler is the new design: a job-level queue before container allocation,
// where waiting costs nothing. Every tick (10 s by default) Decide makes two
// decisions, in this order.
//
// 1. How many jobs each model may run. A feedback controller per model reads
// the model's gateway queue depth d (the number of its calls waiting at the
// gateway) and compares it with a target T. The default rule is "slowstart"
// (see Rival controllers: probe while the queue is empty, back off a dead
// time, then an integral step); the reference rule the others are measured
// against, "step", is the simplest and is described here:
//
//	d < T and the limit is binding  → raise the limit one step (up to max_limit)
//	d > T + tolerance               → lower it one step (down to min_limit)
//	otherwise                       → hold
//
// A step is additive (limit ± step) or multiplicative (limit × factor or
// limit ÷ factor, rounded, moving at least one job). A shallow gateway queue
// means the running jobs do not produce calls fast enough to keep the
// provider busy, so more jobs would do more work; a deep one means they want
// more than the provider gives, and more jobs would only lengthen the queue
// while holding containers. Nobody can say in advance how many calls a job
// makes, so the limit follows the queue instead, and settles within minutes
// on the number a fixed lane cap would have to guess.
//
// Wind-up. A raise is only useful if the limit is what stops jobs from
// starting. The limit of model m is binding when, with the slots m has free
// now (limit − running, running as reported by State, so jobs that finished
// since the last tick already count as free), admission would fill every one
// of them and still leave jobs of m waiting, and the container pool could do
// more than fill the free slots of every model. It is not binding when no job
// of m waits, when m's waiting jobs fit in its free slots, or when containers
// are what stops starts: raising then would move the limit away from anything
// the depth reading has tested, and a later burst of containers or jobs would
// start all of that untested concurrency at once. The mirror hazard,
// wind-down, is lowering a limit that is already below the running count: jobs
// cannot be evicted, so no job starts either way, and each further step down
// digs a hole the limit must later climb out of, one step per tick, while the
// provider idles. Above target, the controller therefore lowers only a limit
// at or above the running count, and holds otherwise (ActionBelowRunning); as
// running jobs drain, the limit steps down behind them. The plain case is
// every slot taken (running ≥ limit) with a job waiting; counting the slots
// freed since the last tick matters because in a busy system some job of a hot
// model finishes in almost every tick, so running < limit at almost every tick
// even when the limit is exactly what holds the model back.
//
// Smoothing. With smoothing alpha in (0, 1) the controller acts on an
// exponentially weighted moving average of the readings,
// s ← alpha·d + (1−alpha)·s, started at the first reading and updated once per
// new reading (a reading whose time has not advanced is not counted twice).
// It damps oscillation from bursty fan-out at the price of lag; 0 or 1 turns
// it off.
//
// Quotas. With a State that also reports quota signals (QuotaState), any
// 429 the model answers for since the last tick holds its limit, and 429s
// persisting reject_lower_after ticks lower it one step (rejected). A raise
// is also held while it would fill one of the model's quota windows
// (ActionNoHeadroom): the model's own use of a window
// (QuotaReading.ModelUse) came from the r jobs it ran over the window, so n
// jobs would use n/r of it, and the raise waits while
// use + (n − r)/r · own use ≥ 1 in any dimension, unless the model is below
// its share of its organisation's running jobs (QuotaReading.BelowShare),
// whose lanes above share give way instead. For the per-minute windows r is
// the mean running count at the last minute's ticks (a ring per model), for
// the daily ones the running count now. A window shows a raise only after
// the new jobs have called, so a clean tick alone would raise again and
// again into a full window. With job_rate_hold set, the per-job share of a
// per-minute window is the highest seen, halved every job_rate_hold: young
// agent jobs call with short contexts, so a lane of young jobs uses less of
// a window than the same jobs will a few minutes later. And once one of a
// model's quota windows is a third full, a raise grows the limit by at most
// factor^(tick/quota_dead_time) (default 2 min, at least one job) under
// every controller: the window's feedback is slower than the depth's, and
// a lane of young jobs at a third can be full once they have grown.
//
// Stale readings. Every depth reading comes with the time it was taken. A
// reading taken more than stale_after before now (default three ticks), or
// never taken, is stale: the controller holds the limit, neither raising nor
// lowering, and does not feed the reading into the average. A metrics
// pipeline that stops reporting must never be read as an empty queue, and
// never raise a limit on data that no longer describes the provider.
//
// # Rival controllers
//
// SchedulerConfig.Controller picks the rule that moves a limit l; the rule
// above is "step", the reference; "slowstart" is the default. Every rival shares its guards: a stale
// reading holds; a raise needs a binding limit (no wind-up); a limit already
// below the running count is not lowered (no wind-down); a raise into a full
// quota window is held (no headroom). d is the (smoothed)
// depth, T the target, τ the tolerance. Each is driven on a fluid provider of
// known capacity in rivals_test.go; "cycles" below is what that harness and
// the controllers scenario measure. bakeoff_test.go runs them all through
// the failures the field has reported (quotas, shared keys, timeouts, fast
// failures, loaded starts) and writes docs/studies/bakeoff.md whole.
//
//   - search: raise below T − h, lower above T + τ + h, h = max(1, T/4)
//     (hysteresis); the step is g·l (at least one job), g starting at
//     factor − 1, halved after every reversal and doubled (up to factor − 1)
//     after three moves one way, so it re-accelerates after a capacity
//     change. Failure: on a noisy depth the band must be wider than the
//     noise or it keeps reversing, with a step shrunk to one job.
//   - aimd: l + step below T, 0.8·l above T + τ. Failure: the ramp is
//     linear (l/step ticks to reach l) and it saws between 0.8·l* and l*.
//   - pi: e = (T − d)/(T + d) ∈ (−1, 1] (scale-free, zero inside the
//     tolerance band); l ← l·(1 + Kp·(e − e_prev) + Ki·e), Kp = 0.05,
//     Ki = 0.02, the move capped at ±25%. Failure: the depth's slope in l is
//     about callsPerJob·l/T, so gains stable near capacity ramp slowly
//     (about 2% per tick) and larger ones oscillate; it has no model of the
//     jobs' lag (a lowered limit bites only as jobs finish).
//   - gradient (Netflix Gradient2 on the calls' latency, State permitting,
//     see LatencySignals): short = the newest mean latency, long = an
//     average over ~60 readings that learns only from readings within 10%
//     of it and decays ×0.95 when over twice short; gradient =
//     clamp(1.5·long/short, 0.5, 1); l ← 0.8·l + 0.2·(gradient·l + q),
//     q = max(4, √l). Failures: it steers latency, not depth, so it settles
//     with the queue at about half the provider's capacity; a baseline that
//     learns from loaded readings ratchets up (Envoy #11579) and the q term
//     grows the limit without bound (concurrency-limits #134), which is why
//     the baseline here learns only from uncongested readings; dropped or
//     throttled calls cap the latency it sees (#176), timeouts without a
//     latency change never stop it (#137); on calls of very different
//     sizes the per-tick mean is noisy and it may never ramp.
//   - inspect (inspect_ai's adaptive connection control): double per clean
//     tick until the first 429, then l + max(1, 5%·l) per clean tick and
//     0.8·l per 429 episode (429s within three ticks of a cut are one
//     episode). It hears the 429s itself (LatencySignals), so the
//     scheduler's quota rule (QuotaState) is not applied to it. Failure: it
//     only hears 429s: with no quota it climbs to max_limit and every
//     extra job waits at the gateway holding a container; with a quota it
//     saws (a cut needs a 429).
//   - bands (a per-band AIMD gate in the manner of llm-d-async): d ≤ T/2:
//     l + max(step, 5%·l); up to T + τ: hold; up to 2T + τ: l − 1; beyond:
//     0.75·l. Failure: the hold band is the only damping; a depth noisier
//     than the band walks the limit down one job at a time.
//   - damped: a search on its own average s ← 0.3·d + 0.7·s. It raises only
//     when both s and the newest d are below T/2, lowers only when both are
//     above 2T + τ (a hold band proportional to the target, and no move on
//     one noisy reading), holds one tick after every move, and holds while a
//     lowered limit is still below the running count (the cut has not
//     bitten: judging the depth then would cut again for the same excess).
//     The step is g·l, g from factor − 1, halved after a reversal, doubled
//     after three moves one way. Failure: the start is still a ramp that
//     overshoots by the jobs started during the depth's lag, and undoing it
//     takes as long as the jobs run (minutes to tens of minutes); the wide
//     band leaves the depth anywhere in [T/2, 2T + τ].
//   - slowstart (the default): an integral step on the depth error,
//     l ← l + g·(T − d), g = 0.05 jobs per call (zero inside the tolerance
//     band), that probes while the queue is empty: an empty queue says only
//     that the limit is short by an unknown amount, so the raise doubles
//     every dead time θ (dead_time, 3 ticks) the queue stays empty,
//     g·T·2^(k/θ) after k empty ticks (at least one job), but never faster
//     than ×factor per dead time. When a probe of at least a dead time
//     ends with d > T + τ, that reading is news about the limit of a dead
//     time ago (the jobs started since have not called yet): the limit
//     backs off to it, and the extra jobs drain as they finish while the
//     wind-down guard holds the limit. So the start overshoots by at most
//     one step's worth of jobs, and the limit stays put while the depth
//     returns to target; capacity regained is found again by the doubling.
//     Failures: a dead time set shorter than the real lag overshoots by
//     more (the probe outruns the depth); one set much longer backs off
//     below capacity and climbs back on the integral; the start is a paced
//     ramp (θ·ln(l*/l0)/ln(factor) ticks), slower than step's ×1.25 per
//     tick; on a depth noisier than T the limit jitters by a job or two a
//     tick (reversals counted, inside the ±10% band); calls that time out
//     without queueing never show in the depth, so it climbs to max_limit;
//     two schedulers on one key move their limits by the same number of
//     jobs, so they keep the split they started with.
//
// 2. Which waiting jobs get the slots. Model m has limit(m) − running(m) free
// slots (never below zero), and all models together at most
// State.FreeContainers(). Three rules share them out, each sharing only what
// the previous one left:
//
//   - Priority tiers, by weight rather than absolutely. Among the tiers
//     that can use a slot now, in priority order (tier 1 first), the first
//     takes tier_share (0.8) of the slots, the next tier_share of what is
//     left, and so on; the last takes all the rest. What a tier cannot use
//     flows on to the next, and lower tiers keep moving while urgent work
//     waits. Weights are realised slot by slot with smooth weighted round
//     robin: each tier keeps a credit; for every slot each eligible tier
//     gains its weight, the tier with the most credit takes the slot and
//     pays 1. Credits carry across ticks — the fractions of slots a tier was
//     owed are not lost — so the shares hold even when only one slot frees
//     up per tick. A tier's credit is reset when it has nothing left
//     waiting, like the deficit of deficit round robin.
//   - Within a tier, projects take turns, one job at a time, in a fixed
//     cyclic order whose position carries across ticks. A 50,000-job batch
//     and a 10-job batch advance at the same pace: size buys no priority.
//   - Within a project, the oldest job first (by arrival, then job ID).
//
// A job is eligible only if its model still has a free slot, so a project
// whose models are all at their limit is skipped without losing its turn.
//
// The tier of a job is inherited down account → project → batch, as the
// source says: "Priority passes from an account to its projects and
// batches ... raising an account's priority" (pinning an account) raises
// everything under it. A level below may raise the priority it inherits
// but never lower it: the job takes the highest priority any of its levels
// sets (Job.EffectiveTier). SetAccountTier, SetProjectTier and SetBatchTier
// override a level at run time, for waiting jobs as well as future ones, so
// pinning an account raises everything under it, projects with tiers of
// their own included.
//
// # Cost
//
// Waiting jobs are indexed by tier, then project, then model: each
// (tier, project, model) lane is a queue ordered oldest first (a sorted run
// while its jobs join in order, a heap otherwise), and each (tier, model)
// pair keeps a bitset of the projects, by ring position, with jobs on that
// model. A tick costs O(models) to read the depths, O(models with waiting
// jobs × tiers) to open the models with free slots, then, per started job,
// O(tiers) to pick the tier, one bitset search per open model to find the
// next project in turn (skipping 4,096 projects per summary word), and
// O(models of that project) to find its oldest job on an open model. No step scans the
// waiting jobs, and a project whose jobs sit on closed models costs nothing.
// Enqueue, and a start, cost O(1) (amortised) while a lane's jobs join in
// order, O(log n) in the lane's size otherwise; Enqueue adds a look along
// the project's lanes. In steady state Decide does not allocate.
package policies
