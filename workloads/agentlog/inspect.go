package agentlog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/evalsched/lab/internal/input"
)

// inspectHeader is the part of an EvalLog's header the importer reads.
type inspectHeader struct {
	Status string `json:"status"`
	Eval   struct {
		EvalID   string            `json:"eval_id"`
		RunID    string            `json:"run_id"`
		Task     string            `json:"task"`
		Model    string            `json:"model"`
		Created  string            `json:"created"`
		Packages map[string]string `json:"packages"`
		Config   struct {
			MaxSamples   *int `json:"max_samples"`
			MaxSandboxes *int `json:"max_sandboxes"`
			MaxTasks     *int `json:"max_tasks"`
			Epochs       *int `json:"epochs"`
		} `json:"config"`
		// ModelGenerateConfig holds max_connections in logs that record
		// the model's generate config in the eval spec.
		ModelGenerateConfig struct {
			MaxConnections *int `json:"max_connections"`
		} `json:"model_generate_config"`
		Dataset struct {
			SampleIDs []json.RawMessage `json:"sample_ids"`
		} `json:"dataset"`
	} `json:"eval"`
	Plan struct {
		Config struct {
			MaxConnections *int `json:"max_connections"`
		} `json:"config"`
	} `json:"plan"`
	Stats struct {
		StartedAt string `json:"started_at"`
	} `json:"stats"`

	run *Run // built once from the fields above (inspectRun)
}

// inspectSample is the part of a sample the importer reads.
type inspectSample struct {
	ID        json.RawMessage `json:"id"` // a string or a number
	Epoch     int             `json:"epoch"`
	StartedAt string          `json:"started_at"`
	TotalTime *float64        `json:"total_time"`
	// Events are decoded one by one: their fields vary by event type (a
	// sandbox event's output is a string, a model event's an object).
	Events []json.RawMessage `json:"events"`
}

type inspectEvent struct {
	Event       string   `json:"event"`
	Timestamp   string   `json:"timestamp"`
	Completed   string   `json:"completed"`
	WorkingTime *float64 `json:"working_time"`
	// model events
	Model   string          `json:"model"`
	Retries int             `json:"retries"`
	Error   json.RawMessage `json:"error"`
	Output  *struct {
		Time  *float64        `json:"time"`
		Error json.RawMessage `json:"error"`
		Usage *struct {
			InputTokens  *int `json:"input_tokens"`
			OutputTokens *int `json:"output_tokens"`
			TotalTokens  *int `json:"total_tokens"`
			CacheRead    *int `json:"input_tokens_cache_read"`
			CacheWrite   *int `json:"input_tokens_cache_write"`
			Reasoning    *int `json:"reasoning_tokens"`
		} `json:"usage"`
	} `json:"output"`
	Config struct {
		MaxTokens *int `json:"max_tokens"`
	} `json:"config"`
	// tool events
	Function string `json:"function"`
	Failed   *bool  `json:"failed"`
}

// checkSettings refuses a harness setting the header states below 1:
// Inspect runs nothing with it, and read as 0 it would be taken as unset
// (Inspect's default). Unset settings are null or absent.
func (h *inspectHeader) checkSettings() *Problem {
	c := &h.Eval.Config
	for _, s := range []struct {
		path string
		v    *int
	}{
		{"eval.config.max_samples", c.MaxSamples},
		{"eval.config.max_sandboxes", c.MaxSandboxes},
		{"eval.config.max_tasks", c.MaxTasks},
		{"eval.config.epochs", c.Epochs},
		{"eval.model_generate_config.max_connections", h.Eval.ModelGenerateConfig.MaxConnections},
		{"plan.config.max_connections", h.Plan.Config.MaxConnections},
	} {
		if s.v != nil && *s.v < 1 {
			return problem("", 0, s.path, "must be at least 1 when set (null or absent when unset), got %d: the log is refused", *s.v)
		}
	}
	return nil
}

// readInspect reads an Inspect log: a .eval zip or a .json EvalLog.
func readInspect(file string, sink Sink) error {
	if strings.EqualFold(path.Ext(file), ".eval") {
		return readInspectZip(file, sink)
	}
	f, err := openFile(file)
	if err != nil {
		return err
	}
	defer f.Close()
	return readInspectJSON(f, file, sink)
}

// readInspectJSON streams a .json EvalLog: the header fields as they come,
// then each of samples[] decoded on its own, so memory holds one sample.
// (Inspect writes eval and plan before samples; a sample met before the
// header is named from what is known by then.)
func readInspectJSON(r io.Reader, file string, sink Sink) error {
	s := newStream(r)
	var h inspectHeader
	var keys []string
	var refused *Problem
	err := s.members("EvalLog", func(key string) error {
		keys = append(keys, key)
		switch key {
		case "eval", "plan":
			line := s.line()
			var err error
			if key == "eval" {
				err = s.dec.Decode(&h.Eval)
			} else {
				err = s.dec.Decode(&h.Plan)
			}
			// A header field of the wrong type refuses the log, as does a
			// setting out of range: either would become a default.
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				refused = problem(file, line, key+"."+te.Field, "want %s, got a JSON %s (the log's header is unreadable: the log is refused)", jsonKindOf(te.Type), te.Value)
				return refused
			}
			if err != nil {
				return err
			}
			if perr := h.checkSettings(); perr != nil {
				perr.File, perr.Line = file, line
				refused = perr
				return refused
			}
			return nil
		case "status":
			// A writer may put status and stats after the samples: the
			// sessions already made share the run, which learns them now.
			err := s.dec.Decode(&h.Status)
			if h.run != nil {
				h.run.Status = h.Status
			}
			return err
		case "stats":
			err := s.dec.Decode(&h.Stats)
			if t, perr := parseTime(h.Stats.StartedAt); perr == nil && h.run != nil {
				h.run.Started = t
			}
			return err
		case "samples":
			return s.elems("samples", func(i int) error {
				line := s.line()
				where := fmt.Sprintf("samples[%d]", i)
				var smp inspectSample
				if err := s.dec.Decode(&smp); err != nil {
					if _, ok := err.(*json.UnmarshalTypeError); ok {
						sink.Skip(problem(file, line, where, "%s", jsonMsg(err)))
						return nil
					}
					return err
				}
				inspectSession(&h, &smp, file, line, where, sink)
				return nil
			})
		}
		return s.skip()
	})
	if errors.Is(err, input.ErrIdle) {
		return err // a pipe that stopped writing: not a log cut short
	}
	if refused != nil {
		return refused
	}
	if err != nil {
		// A log cut short (a run that died mid-write) keeps the samples
		// before the break; the break is reported, not the file refused.
		sink.Skip(problem(file, s.line(), "", "invalid JSON, the rest of the file not read: %s", jsonMsg(err)))
		return nil
	}
	// JSON of another kind (a TraceLab round trace, OTLP spans) has none
	// of an EvalLog's members: said, not passed over in silence.
	if !slices.Contains(keys, "eval") && !slices.Contains(keys, "samples") {
		if len(keys) > 6 {
			keys = append(keys[:6], "…")
		}
		more := ""
		if s.dec.More() {
			more = ", and more JSON values follow it (JSON Lines?)"
		}
		sink.Skip(problem(file, 1, "", "not an Inspect log: its JSON object has neither eval nor samples (its keys: %s)%s", strings.Join(keys, ", "), more))
	}
	return nil
}

// inspectSession turns a sample into a Session, reporting each event it
// cannot use. where locates the sample (file and line, or zip member;
// path the sample's path in the file).
func inspectSession(h *inspectHeader, smp *inspectSample, file string, line int, path string, sink Sink) {
	id := strings.Trim(string(smp.ID), `"`)
	if id == "" {
		sink.Skip(problem(file, line, subPath(path, "id"), "missing sample id"))
		return
	}
	task := h.Eval.Task
	if task == "" {
		task = "inspect"
	}
	batch := h.Eval.EvalID
	if batch == "" {
		batch = h.Eval.RunID
	}
	if batch == "" {
		batch = baseName(file)
	}
	var total int64
	if smp.TotalTime != nil {
		var msg string
		if total, msg = durationNs(*smp.TotalTime); msg != "" {
			sink.Skip(problem(file, line, subPath(path, "total_time"), "sample %s epoch %d: %s", id, smp.Epoch, msg))
			return
		}
	}
	run := inspectRun(h, file)
	sess := &Session{ID: fmt.Sprintf("%s/%s/%s/e%d", batch, task, id, smp.Epoch), Project: task, Batch: batch, Where: joinWhere(file, line, path),
		Settings: &run.Settings, Run: run, Order: sampleOrder(run, string(smp.ID), smp.Epoch)}
	start := int64(0)
	if smp.StartedAt != "" {
		if t, err := parseTime(smp.StartedAt); err == nil {
			start = t
		}
	}
	earliest, latest := int64(0), int64(0)
	retried := 0
	for i, raw := range smp.Events {
		ep := subPath(path, fmt.Sprintf("events[%d]", i))
		var kind struct {
			Event     string `json:"event"`
			Timestamp string `json:"timestamp"`
		}
		if err := json.Unmarshal(raw, &kind); err != nil {
			sink.Skip(problem(file, line, ep, "%s", jsonMsg(err)))
			continue
		}
		var e inspectEvent
		if kind.Event == "model" || kind.Event == "tool" {
			if err := json.Unmarshal(raw, &e); err != nil {
				sink.Skip(problem(file, line, ep, "%s event: %s", kind.Event, jsonMsg(err)))
				continue
			}
		} else {
			e.Event, e.Timestamp = kind.Event, kind.Timestamp
		}
		if e.Timestamp != "" {
			if t, err := parseTime(kind.Timestamp); err == nil {
				if earliest == 0 || t < earliest {
					earliest = t
				}
				latest = max(latest, t)
				if kind.Event == "sample_init" && sess.Admitted == 0 {
					sess.Admitted = t
				}
			}
		}
		if e.Completed != "" {
			if t, err := parseTime(e.Completed); err == nil {
				latest = max(latest, t)
			}
		}
		switch e.Event {
		case "model":
			c, perr := inspectCall(&e, h)
			if perr != "" {
				sink.Skip(problem(file, line, ep, "model event: %s", perr))
				continue
			}
			if c.Retries > 0 {
				retried++
			}
			sess.Calls = append(sess.Calls, c)
		case "tool":
			t, perr := inspectTool(&e)
			if perr != "" {
				sink.Skip(problem(file, line, ep, "tool event: %s", perr))
				continue
			}
			sess.Tools = append(sess.Tools, t)
		}
	}
	// Without started_at, the sample began total_time before its last
	// event: its first events (sample_init) are written when the sample is
	// queued, which may be hours before it runs.
	if start == 0 && smp.TotalTime != nil && latest > 0 {
		start = latest - total
	}
	if start == 0 || start < earliest {
		start = earliest
	}
	if len(sess.Calls) == 0 {
		sink.Skip(problem(file, line, path, "sample %s epoch %d: no usable model call", id, smp.Epoch))
		return
	}
	if start == 0 || start > sess.Calls[0].Start {
		start = minStart(sess.Calls)
	}
	sess.Start = start
	sess.Ended = max(latest, sess.Calls[len(sess.Calls)-1].End)
	for _, c := range sess.Calls {
		sess.Ended = max(sess.Ended, c.End)
	}
	// Said at the sample's place in its log, as a skipped record is, so
	// that a reader grouping by run (replay-check) can tell whose it is.
	switch {
	case retried == 1:
		sink.note("%s", problem(file, line, path, "%s: 1 call was retried (its interval includes the retries)", sess.ID).Error())
	case retried > 1:
		sink.note("%s", problem(file, line, path, "%s: %d calls were retried (their interval includes the retries)", sess.ID, retried).Error())
	}
	sink.Session(sess)
}

// jsonMsg is a decoding error in a few words: the field, what was wanted
// and what was there.
func jsonMsg(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" { // the value as a whole
			return fmt.Sprintf("want %s, got a JSON %s", jsonKindOf(te.Type), te.Value)
		}
		return fmt.Sprintf("%s: want %s, got a JSON %s", te.Field, jsonKindOf(te.Type), te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// jsonKindOf names the JSON a Go type decodes from.
func jsonKindOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Name() == "RawMessage" {
			return "a JSON value"
		}
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number" // 2.5 or 1e30 is "a number" too
	}
	return "a number"
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func minStart(cs []Call) int64 {
	m := cs[0].Start
	for _, c := range cs {
		m = min(m, c.Start)
	}
	return m
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// subPath joins a field path.
func subPath(prefix, p string) string {
	if prefix == "" {
		return p
	}
	return prefix + "." + p
}

func joinWhere(file string, line int, path string) string {
	s := file
	if line > 0 {
		s += fmt.Sprintf(":%d", line)
	}
	if path != "" {
		s += ": " + path
	}
	return s
}
