// Package agentlog imports the logs that evaluation frameworks and coding
// agents write into the lab's job traces: one job per sample, agent
// invocation or session, its agent loop as an explicit call plan
// (workloads.CallPlan). `sim trace import` is its command line
// (docs/reference/trace-import.md).
//
// # Formats
//
// Inspect AI (Inspect): a .eval file is a zip holding header.json (the
// eval: task, eval_id, model, concurrency settings) and samples/*.json, one
// sample a member, read one member at a time in name order; a member that
// cannot be decoded is reported (FILE:MEMBER) and the others read. A .json
// log is one EvalLog whose samples[] are decoded one at a time from a
// stream (FILE:LINE of the sample). A sample's model events ("event":
// "model") are its calls: start timestamp, end completed — absent in older
// logs, where timestamp + output.time serve — and output.usage. Providers
// count input differently (OpenAI's input_tokens include cache reads,
// Anthropic's exclude reads and writes); the call's input is taken as
// total_tokens − output_tokens when total_tokens is there, else
// input_tokens plus the cache reads and writes when input_tokens is
// smaller than they are. max_tokens is config.max_tokens. A model event
// with an error, no usage or no end is reported and not used. Tool events
// are counted (failed ones too). A sample starts at started_at; older logs
// lack it and write sample_init when the sample is queued, possibly hours
// before it runs, so the start is then the last event less total_time.
//
// OpenTelemetry GenAI spans (OTLP): OTLP/JSON, one ExportTraceServiceRequest
// a file or one a line; resourceSpans[].scopeSpans[].spans[] (older
// instrumentationLibrarySpans too) decoded one span at a time. Ids are hex
// or base64; times strings of Unix nanoseconds. Inference spans
// (gen_ai.operation.name chat, generate_content or text_completion, or a
// span name starting so) are calls: gen_ai.request.model (or
// response.model), gen_ai.usage.input_tokens or the older prompt_tokens,
// output_tokens or completion_tokens, cache_read.input_tokens and
// cache_creation.input_tokens, gen_ai.request.max_tokens; provider from
// gen_ai.provider.name or the older gen_ai.system (shown beside an
// unmapped model's name). An inference span with an error status is a
// failed try and is reported, not used. A call belongs to its outermost
// invoke_agent ancestor (the job, named by its gen_ai.conversation.id);
// without one, to its conversation id; without that, to its trace. A job's
// project is the agent's name, else its resource's service.name. The
// grouping needs every span, in any order over all the files, so the
// spans go through an external sort (spill.go: records held up to a
// budget, sorted runs in temporary files, a k-way merge) by trace; each
// trace's calls and tools are grouped in memory and sorted again by job,
// so memory is the sorts' budget and the largest trace and job, not the
// file. Import, sim trace import's path, sorts the jobs too (by id, to
// number repeated ids; by arrival, the trace's order) instead of holding
// them as Collect does.
//
// TraceLab round traces (TraceLab): round_trace.jsonl, one LLM round a
// line, grouped by session_id (a session's lines need not be together). A
// round is a call from its last input event (user_message, tool_result) to
// its last output event (reasoning, text, tool_call, usage_report); input
// input_tokens_total; cache reads claude_cache_read_input_tokens, or
// prefix_tokens (Codex records the cached prefix only); cache writes
// claude_cache_creation_input_tokens.
//
// # Turns and tool time
//
// A turn is a set of calls whose [start, end] intervals overlap, chained:
// calls sorted by start, a call joins the current turn when it starts
// before the latest end so far. A call starting exactly when another ends
// starts a new turn (nothing was in flight between them). The tool time
// after a turn is measured end to start: from its last answer to the next
// turn's first call. It counts whatever the agent did in between (tool
// runs, its own code, a person's reply in an interactive session), which
// is what held the job's container; the last turn has none. Per call the
// plan keeps input and output tokens and, as workloads.CallRecord, the
// cache read and write tokens and max_tokens the log recorded (the
// simulator does not read those yet).
//
// # Jobs
//
// A job's arrival is its session's start less the earliest start of all
// the logs read; jobs are written in arrival order (ties by id). Its model
// is the model of most of its calls, through the --map from recorded names
// to the scenario's catalogue; a recorded name that is neither mapped nor
// in the catalogue refuses the import with every such name listed. Every
// record that cannot be used is a Problem (*field.Error) naming the file
// and line, or the zip member, and the field path; facts that change no
// job but are worth knowing (retries, calls on other models) are notes.
package agentlog
