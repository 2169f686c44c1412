package agentlog

import (
	"strings"
)

// inspectRun is the log's Run, built once per header.
func inspectRun(h *inspectHeader, file string) *Run {
	if h.run != nil {
		return h.run
	}
	conn := deref(h.Plan.Config.MaxConnections)
	if conn == 0 {
		conn = deref(h.Eval.ModelGenerateConfig.MaxConnections)
	}
	r := &Run{File: logFile(file), RunID: h.Eval.RunID, EvalID: h.Eval.EvalID, Task: h.Eval.Task, Model: h.Eval.Model,
		Version: h.Eval.Packages["inspect_ai"], Status: h.Status,
		Settings: Settings{MaxSamples: deref(h.Eval.Config.MaxSamples), MaxSandboxes: deref(h.Eval.Config.MaxSandboxes), MaxConnections: conn},
		MaxTasks: deref(h.Eval.Config.MaxTasks), Epochs: deref(h.Eval.Config.Epochs)}
	if t, err := parseTime(h.Eval.Created); err == nil {
		r.Created = t
	}
	if t, err := parseTime(h.Stats.StartedAt); err == nil {
		r.Started = t
	}
	for _, id := range h.Eval.Dataset.SampleIDs {
		r.Samples = append(r.Samples, strings.Trim(string(id), `"`))
	}
	h.run = r
	return r
}

// logFile is the log's path without a zip member.
func logFile(where string) string {
	if i := strings.Index(where, ".eval:"); i >= 0 {
		return where[:i+len(".eval")]
	}
	return where
}

// sampleOrder is a sample's place in the harness's queue: epoch-major,
// then the dataset's order (inspect_ai src/inspect_ai/_eval/task/run.py
// builds its sample list epoch by epoch over the dataset); -1 when the
// header does not list the dataset's ids.
func sampleOrder(r *Run, rawID string, epoch int) int {
	id := strings.Trim(rawID, `"`)
	for i, s := range r.Samples {
		if s == id {
			return max(0, epoch-1)*len(r.Samples) + i
		}
	}
	return -1
}
