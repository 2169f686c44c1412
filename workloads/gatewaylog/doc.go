// Package gatewaylog reads a gateway's own per-request logs as a
// production request trace (workloads.RequestGateway): what a platform's
// teams really sent through the gateway in front of a shared quota.
// `sim trace import --from litellm` is its command line
// (docs/reference/trace-import.md).
//
// # LiteLLM spend logs
//
// The LiteLLM proxy writes one row a request to its LiteLLM_SpendLogs
// table. The fields read, as the proxy's Prisma schema declares them
// (BerriAI/litellm schema.prisma, model LiteLLM_SpendLogs, commit
// 029f645f; read 2026-12-06) and as its writer fills them
// (litellm/proxy/spend_tracking/spend_tracking_utils.py,
// get_logging_payload; read 2026-12-06):
//
//   - request_id (String, the primary key): a repeated id is refused (an
//     export of overlapping pages would count calls twice).
//   - startTime, endTime (DateTime, UTC): the call's arrival, and its
//     latency (kept in the trace, not replayed).
//   - model (String, the model LiteLLM called; model_group, the public
//     name the client asked for, when model is empty): a scenario model,
//     directly or through --map.
//   - prompt_tokens, completion_tokens (Int, default 0).
//   - cache_hit (String: Python's str of a bool, "True" or "False"; ""
//     or "None" in older rows): a hit was answered from LiteLLM's own
//     response cache and never reached a provider, so it is counted and
//     not replayed.
//   - status (String: "success" or "failure"; absent in rows older than
//     the column, which were successes): a failure is counted and not
//     replayed (its tokens are not the call's).
//   - team_id (String, optional) and api_key (String: the hashed virtual
//     key, "litellm_proxy_master_key" for the master key): the call's
//     source, kept so that a production stream can replay one team's or
//     one key's calls (scenario production[].team, .key).
//
// Other fields (spend, metadata, messages, …) are ignored. Files are a
// JSON array of rows (what GET /spend/logs answers), JSON Lines (one row a
// line) or CSV with a header row (a database export: `\copy (SELECT …)
// TO … CSV HEADER`); .csv files are read as CSV, others as JSON. Times are
// RFC 3339 strings, "YYYY-MM-DD HH:MM:SS[.ffffff][±zone]" (UTC when no
// zone, as Postgres writes a timestamp column) or Unix seconds (a JSON
// number, as LiteLLM's StandardLoggingPayload logs them).
//
// Bounds: a row (a line, an array element, a CSV record) of at most
// MaxRowBytes, at most MaxRows rows over all files, names (model, team,
// key, request id) of at most workloads.MaxGatewayName bytes. A bad row
// refuses the import with FILE:LINE: field: problem, and nothing is
// written; so does a model neither in the scenario nor mapped (every such
// name listed with its count), or a span of more than workloads.MaxDuration.
//
// No LiteLLM spend-log export is public: the sample under testdata/ was
// written from the schema above (testdata/litellm/PROVENANCE.md).
package gatewaylog
