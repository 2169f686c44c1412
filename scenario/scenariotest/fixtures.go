// Package scenariotest holds scenario texts that tests of several packages
// share: a small valid scenario and a block of variants to append to it.
package scenariotest

// Valid is a small scenario that loads: two models on one organisation,
// two accounts of two projects, one behaviour, a fixed-lane lane.
const Valid = `name: t
duration: 1h
warmup: 5m
containers: {capacity: 100, startup: 5s}
organisations:
  - {name: o, rpm: 100}
models:
  - name: a
    org: o
    streams: 10
    decode_rate: 50
  - {name: b, streams: 5, decode_rate: 40}
workload:
  accounts: 2
  projects_per_account: 2
  models:
    hot: [a]
    hot_share: 0.5
    zipf_s: 1.5
  background: {rate_per_hour: 10, size: 3}
  behaviours:
    x: {turns: 2}
policies:
  fixed_lane:
    global_cap: 50
    lanes: {a: 20}
`

// VariantsBlock is a variants block for Valid: old (fixed-lane), new (no
// overlay) and deep (nested keys, a model overlaid and one added).
const VariantsBlock = `variants:
  old: {policy: fixed-lane}
  new: {}
  deep:
    policy: scheduler
    policies: {scheduler: {target_depth: 40}}
    models:
      - {name: a, streams: 3}
      - {name: c, streams: 7, decode_rate: 30}
    workload:
      models: {hot: [b]}
`
