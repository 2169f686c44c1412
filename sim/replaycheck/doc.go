// Package replaycheck checks the lab against a recorded run: it replays an
// Inspect log's samples, each as the call plan its log recorded (imported
// by workloads/agentlog), under the log's own concurrency settings, with
// provider latency fitted from the log's own calls, and compares each
// sample's duration and the run's makespan with the log.
//
// The replay's scenario: one container per concurrent sample,
// min(max_samples, max_sandboxes) of them with no start-up delay (Inspect's
// defaults when unset: max_connections 10, max_samples max_connections + 1,
// sandboxes unbounded); a gateway in-flight limit of max_connections per
// model; providers with ample streams and no quotas (the log does not say
// what else shared them), no jitter, latency ttft + output / decode_rate
// with both fitted by least squares to the calls' working_time (the
// successful try, without retries or waits) against their output tokens;
// the fixed-lane policy with a global cap of the container count (first
// come, first served, as Inspect starts samples). Samples arrive at their
// recorded starts. A sample's recorded duration is its start to its last
// call's end; its simulated duration is its arrival to its finish.
//
// Reported: per sample, recorded and simulated seconds and the absolute
// percentage error; their median and mean (MdAPE, MAPE); Pearson's
// correlation of the durations; the makespan (first start to last end)
// recorded and simulated; and the time calls waited before being served,
// recorded (each call's end − start − working_time) against simulated
// (a call's creation to its first acceptance by the provider).
package replaycheck
