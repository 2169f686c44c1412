package predict

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/evalsched/lab/scenario"
)

// Harness is the inspect_ai scheduling a process ran under, read from its
// logs' version and config, each default cited to the inspect_ai source
// (github.com/UKGovernmentBEIS/inspect_ai, read 2026-12-06).
type Harness struct {
	Version string `json:"version"`
	// MaxConnections is each connection pool's size (the start under
	// adaptive connections).
	MaxConnections int `json:"max_connections"`
	// MaxSamples bounds each task's running samples; MaxTasks the tasks
	// running at once.
	MaxSamples int `json:"max_samples"`
	MaxTasks   int `json:"max_tasks"`
	// SamplesSet: the log set max_samples (a what-if on connections then
	// leaves it alone, as Inspect would).
	SamplesSet bool `json:"-"`
	// Adaptive: the pools' limits follow inspect_ai's adaptive connections
	// (an AIMD controller), between AdaptiveMin and AdaptiveMax.
	Adaptive                 bool `json:"adaptive"`
	AdaptiveMin, AdaptiveMax int  `json:"-"`
	// PoolBy is what one connection pool serves: "model", or "provider"
	// (every model of one provider key shares a pool).
	PoolBy string `json:"pool_by"`
	// Why lists where each setting came from.
	Why []string `json:"why"`
}

// version is a parsed inspect_ai version (0.3.58.dev16+g… → 0 3 58).
type version [3]int

func parseVersion(s string) (version, bool) {
	var v version
	parts := strings.SplitN(s, ".", 4)
	if len(parts) < 3 {
		return v, false
	}
	for i := range 3 {
		p := parts[i]
		if j := strings.IndexFunc(p, func(r rune) bool { return r < '0' || r > '9' }); j >= 0 {
			p = p[:j]
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

func (v version) atLeast(patch int) bool { return v[0] > 0 || v[1] > 3 || (v[1] == 3 && v[2] >= patch) }

// Inspect's constants, by the version that introduced them.
const (
	// _util/constants.py DEFAULT_MAX_CONNECTIONS (0.3.58 …).
	defaultMaxConnections = scenario.InspectDefaultMaxConnections
	// 0.3.221 (CHANGELOG, 16 May 2026): adaptive connections on by default
	// when max_connections is unset; design/adaptive-concurrency.md:
	// AdaptiveConcurrency defaults min 4 (10 from 0.3.240), start 20, max
	// 100; the sample limiter starts at start + BUFFER (5).
	adaptiveFrom, adaptiveStart, adaptiveMax, adaptiveBuffer = 221, 20, 100, 5
	adaptiveMinOld, adaptiveMinNew, adaptiveMinFrom          = 4, 10, 240
	// 0.3.225 (CHANGELOG, 23 May 2026): "Create separate connection limit
	// pools per model"; before, a pool per provider key
	// (model/_model.py _connection_concurrency: key Model{connection_key()},
	// the API key).
	poolPerModelFrom = 225
)

// HarnessOf reads the process's harness settings from its logs.
func HarnessOf(p *Process) Harness {
	h := Harness{Version: p.Version()}
	v, known := parseVersion(h.Version)
	if !known {
		h.Why = append(h.Why, fmt.Sprintf("inspect_ai version %q not read: taken as before 0.3.221", h.Version))
	}
	first := p.Logs[0]
	switch {
	case first.MaxConnections > 0:
		h.MaxConnections = first.MaxConnections
		h.Why = append(h.Why, fmt.Sprintf("max_connections %d: set in the log", h.MaxConnections))
	case known && v.atLeast(adaptiveFrom):
		h.Adaptive, h.MaxConnections, h.AdaptiveMax = true, adaptiveStart, adaptiveMax
		h.AdaptiveMin = adaptiveMinOld
		if v.atLeast(adaptiveMinFrom) {
			h.AdaptiveMin = adaptiveMinNew
		}
		h.Why = append(h.Why, fmt.Sprintf("max_connections unset in %s (>= 0.3.221): adaptive connections, start %d, min %d, max %d, inspect_ai's controller (util/_concurrency.py, design/adaptive-concurrency.md)", h.Version, adaptiveStart, h.AdaptiveMin, adaptiveMax))
	default:
		h.MaxConnections = defaultMaxConnections
		h.Why = append(h.Why, fmt.Sprintf("max_connections unset: the provider default %d (_util/constants.py DEFAULT_MAX_CONNECTIONS)", defaultMaxConnections))
	}
	switch {
	case first.MaxSamples > 0:
		h.MaxSamples, h.SamplesSet = first.MaxSamples, true
		h.Why = append(h.Why, fmt.Sprintf("max_samples %d: set in the log", h.MaxSamples))
	case h.Adaptive:
		// DynamicSampleLimiter follows its model's controller at
		// controller.concurrency + BUFFER, from start + BUFFER up to max +
		// BUFFER; the lab's policy holds one bound: the ceiling, so the
		// pool (which the controller moves) is what limits.
		h.MaxSamples = adaptiveMax + adaptiveBuffer
		h.Why = append(h.Why, fmt.Sprintf("max_samples unset under adaptive connections: the sample limiter follows the pool's limit + %d, up to %d (DynamicSampleLimiter, _eval/task/run.py create_sample_semaphore)", adaptiveBuffer, h.MaxSamples))
	default:
		h.MaxSamples = h.MaxConnections
		h.Why = append(h.Why, fmt.Sprintf("max_samples unset: max_connections %d (_eval/task/run.py create_sample_semaphore)", h.MaxSamples))
	}
	models := map[string]bool{}
	for _, l := range p.Logs {
		models[l.Model] = true
	}
	switch {
	case first.MaxTasks > 0:
		h.MaxTasks = first.MaxTasks
		h.Why = append(h.Why, fmt.Sprintf("max_tasks %d: set in the log", h.MaxTasks))
	case len(models) > 1:
		h.MaxTasks = len(models)
		h.Why = append(h.Why, fmt.Sprintf("max_tasks unset with %d models: %d (_eval/eval.py: the number of models)", len(models), h.MaxTasks))
	default:
		h.MaxTasks = 1
		h.Why = append(h.Why, "max_tasks unset with one model: tasks one at a time (_eval/eval.py: parallel = 1)")
	}
	h.PoolBy = "provider"
	if known && v.atLeast(poolPerModelFrom) {
		h.PoolBy = "model"
	}
	return h
}
