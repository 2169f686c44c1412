package sim

import (
	"fmt"
	"io"
	"time"

	"github.com/evalsched/lab/internal/field"

	"github.com/evalsched/lab/workloads"
)

// ProductionConfig replays a public request trace as production traffic:
// open-loop calls on one model that share its provider streams and its
// organisation's quotas with the evaluation jobs. They go to the provider
// directly (not through the evaluation gateway's queue) and on a 429 back off
// and retry like gateway calls, up to MaxAttempts.
type ProductionConfig struct {
	Name   string `yaml:"name" json:"name"`
	Trace  string `yaml:"trace" json:"trace"`   // path; relative paths are relative to the scenario file
	Format string `yaml:"format" json:"format"` // azure, mooncake, or empty to infer from the extension
	Model  string `yaml:"model" json:"model"`
	// Speedup compresses time (2 = twice the request rate); Loop restarts
	// the trace at its end until the run ends; Offset delays it.
	Speedup     float64       `yaml:"speedup" json:"speedup"`
	Loop        bool          `yaml:"loop" json:"loop"`
	Offset      time.Duration `yaml:"offset" json:"offset"`
	MaxAttempts int           `yaml:"max_attempts" json:"max_attempts"`
}

func (s *Scenario) validateProduction() error {
	for i := range s.Production {
		p := &s.Production[i]
		path := fmt.Sprintf("production[%d]", i)
		switch {
		case !s.hasModel(p.Model):
			return field.Errorf(path+".model", "unknown model %q", p.Model)
		case p.Trace == "":
			return field.Errorf(path+".trace", "missing")
		case p.Format != "" && p.Format != "azure" && p.Format != "mooncake":
			return field.Errorf(path+".format", "unknown %q (want azure or mooncake)", p.Format)
		case p.Speedup < 0:
			return field.Errorf(path+".speedup", "must be >= 0, got %g", p.Speedup)
		case p.Offset < 0:
			return field.Errorf(path+".offset", "must be >= 0, got %v", p.Offset)
		case p.MaxAttempts < 0:
			return field.Errorf(path+".max_attempts", "must be >= 1, got %d", p.MaxAttempts)
		}
	}
	return nil
}

// loadProduction opens each trace once to check the file and its format
// before any run starts.
func (s *Scenario) loadProduction() error {
	for i := range s.Production {
		p := &s.Production[i]
		src, closer, err := workloads.OpenRequestTrace(p.Trace, p.Format, workloads.ReplayOptions{Horizon: time.Minute})
		if err == nil {
			src.Next()
			err = src.Err()
			closer.Close()
		}
		if err != nil {
			return field.Errorf(fmt.Sprintf("production[%d].trace", i), "%v", err)
		}
	}
	return nil
}

// productionStream is one replayed trace in a run: a source of calls of its
// own kind (productionCall), owned by the stream. Its statistics are kept by
// the recorder.
type productionStream struct {
	cfg    *ProductionConfig
	model  int32
	src    workloads.CallSource
	closer io.Closer
	next   workloads.Call
}

// openProduction opens every production trace for a run.
func (w *World) openProduction() error {
	index := map[string]int32{}
	for i, m := range w.sc.Catalogue() {
		index[m] = int32(i)
	}
	for i := range w.sc.Production {
		p := &w.sc.Production[i]
		src, closer, err := workloads.OpenRequestTrace(p.Trace, p.Format, workloads.ReplayOptions{
			Speedup: p.Speedup, Loop: p.Loop, Offset: p.Offset, Horizon: w.sc.Duration})
		if err != nil {
			return fmt.Errorf("production %s: %w", p.Name, err)
		}
		w.prod = append(w.prod, productionStream{cfg: p, model: index[p.Model], src: src, closer: closer})
		w.pullProduction(int32(i))
	}
	return nil
}

// closeProduction closes every production trace and returns the first
// trace error met during the run.
func (w *World) closeProduction() error {
	var first error
	for i := range w.prod {
		w.prod[i].closer.Close()
		if err := w.prod[i].src.Err(); err != nil && first == nil {
			first = fmt.Errorf("production %s: %w", w.prod[i].cfg.Name, err)
		}
	}
	return first
}

func (w *World) pullProduction(i int32) {
	p := &w.prod[i]
	call, ok := p.src.Next()
	if !ok {
		return
	}
	at := FromDuration(call.Arrival)
	if at < w.now() {
		at = w.now()
	}
	p.next = call
	w.eng.Schedule(at, evProduction, i, 0)
}

// productionArrival turns the stream's next request into a call sent
// straight to the provider.
func (w *World) productionArrival(i int32) {
	p := &w.prod[i]
	call := p.next
	w.pullProduction(i)
	c := w.newCall(productionCall, i, p.model, call.In, call.Out, 0.5)
	w.rec.prod[i].arrived++
	w.send(c)
}
