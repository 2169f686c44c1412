package predict

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"
)

// Options are a check's settings.
type Options struct {
	Seeds   int      // latency draws (seeds 1..Seeds); 0: 20
	Folds   int      // k of the k-fold fit; 0: 5
	FitFrom []string // fit latency on these logs instead (no folds)
	WhatIf  WhatIf   // replay under other settings too
}

// Figure is one figure of a run: recorded, predicted (the median over the
// seeds) with its 90% interval (the seeds' 5th and 95th percentiles), and
// the relative error (predicted − recorded) / recorded. Recorded and
// Error are null where the log's version does not record the figure.
type Figure struct {
	Recorded  *float64   `json:"recorded"`
	Predicted float64    `json:"predicted"`
	Interval  [2]float64 `json:"interval_90"`
	Error     *float64   `json:"error"`
	Inside    *bool      `json:"inside_interval"`
}

// Figures are a run's figures (see Measures).
type Figures struct {
	Makespan     Figure `json:"makespan_s"`
	InFlightMean Figure `json:"in_flight_mean"`
	InFlightMax  Figure `json:"in_flight_max"`
	WaitingMean  Figure `json:"waiting_mean"`
	SampleP50    Figure `json:"sample_duration_p50_s"`
	SampleP90    Figure `json:"sample_duration_p90_s"`
	LatencyP50   Figure `json:"call_latency_p50_s"`
	LatencyP90   Figure `json:"call_latency_p90_s"`
	Throttled    Figure `json:"throttled_429s"`
}

func (f *Figures) each() []struct {
	name string
	fig  *Figure
	pick func(Measures) float64
} {
	return []struct {
		name string
		fig  *Figure
		pick func(Measures) float64
	}{
		{"makespan_s", &f.Makespan, func(m Measures) float64 { return m.Makespan }},
		{"in_flight_mean", &f.InFlightMean, func(m Measures) float64 { return m.InFlightMean }},
		{"in_flight_max", &f.InFlightMax, func(m Measures) float64 { return m.InFlightMax }},
		{"waiting_mean", &f.WaitingMean, func(m Measures) float64 { return m.WaitingMean }},
		{"sample_duration_p50_s", &f.SampleP50, func(m Measures) float64 { return m.SampleP50 }},
		{"sample_duration_p90_s", &f.SampleP90, func(m Measures) float64 { return m.SampleP90 }},
		{"call_latency_p50_s", &f.LatencyP50, func(m Measures) float64 { return m.LatencyP50 }},
		{"call_latency_p90_s", &f.LatencyP90, func(m Measures) float64 { return m.LatencyP90 }},
		{"throttled_429s", &f.Throttled, func(m Measures) float64 { return m.Throttled }},
	}
}

// RunResult is one process's check.
type RunResult struct {
	Run     string   `json:"run"`
	Logs    []string `json:"logs"`
	Version string   `json:"inspect_ai_version"`
	Status  []string `json:"status"`
	Harness Harness  `json:"harness"`
	Samples int      `json:"samples"`
	Calls   int      `json:"calls"`
	Fits    []*Fit   `json:"latency"`
	// Warnings say what may bias the run's prediction: its other tasks'
	// logs not given.
	Warnings []string `json:"warnings,omitempty"`
	// HeldOut: every model's latency was fitted without the calls it
	// predicts; a run fitted in sample is left out of the summary.
	HeldOut bool    `json:"held_out"`
	Figures Figures `json:"figures"`
	// WhatIf is the replay under the what-if settings, with the figures'
	// validation errors (Figures) as their error band; nil without one.
	WhatIf *WhatIfResult `json:"what_if,omitempty"`
}

// WhatIfResult is a run replayed under other settings.
type WhatIfResult struct {
	Harness Harness `json:"harness"`
	Policy  string  `json:"policy"`
	Quota   string  `json:"quota,omitempty"`
	Figures Figures `json:"figures"`
	// CostPerSample is the tokens' bill at the what-if's prices over the
	// samples, dollars (the tokens are the run's own; failed tries are
	// not billed); null without --prices.
	CostPerSample *float64 `json:"cost_per_sample"`
}

// Accuracy is one figure's error over the runs that record it and whose
// latency was fitted held out.
type Accuracy struct {
	Runs        int      `json:"runs"`
	MedianAbs   *float64 `json:"median_abs_error"`
	P90Abs      *float64 `json:"p90_abs_error"`
	Covered     int      `json:"inside_interval"` // runs whose recorded value is inside the 90% interval
	LargeRuns   int      `json:"runs_50_calls"`   // runs of 50 calls or more
	LargeWithin int      `json:"runs_50_calls_within_20pct"`
}

// Report is a check over one or more processes.
type Report struct {
	Schema  int                 `json:"schema"`
	Seeds   int                 `json:"seeds"`
	Folds   int                 `json:"folds"`
	Runs    []*RunResult        `json:"runs"`
	Summary map[string]Accuracy `json:"summary"`
	Skipped []string            `json:"skipped"`
	Notes   []string            `json:"notes"` // the log reader's (calls retried, a log without a header)
}

// Check predicts each process of the logs at paths and scores the
// prediction against what the logs recorded.
func Check(paths []string, opt Options) (*Report, error) {
	if opt.Seeds <= 0 {
		opt.Seeds = 20
	}
	if opt.Folds <= 0 {
		opt.Folds = 5
	}
	if opt.Folds == 1 {
		return nil, fmt.Errorf("folds: want at least 2 (a fit without each sample's own calls), got 1")
	}
	procs, skipped, notes, err := Load(paths)
	if err != nil {
		return nil, err
	}
	var from []*Process
	if len(opt.FitFrom) > 0 {
		if from, _, _, err = Load(opt.FitFrom); err != nil {
			return nil, fmt.Errorf("--fit-from: %w", err)
		}
		// A fit on the predicted run's own calls is in sample, not held out.
		for _, q := range from {
			for _, p := range procs {
				if q.ID != p.ID && sameLog(q, p) {
					return nil, fmt.Errorf("--fit-from %s is a log being predicted, %s: the fit would be in sample; fit from other runs' logs", q.Logs[0].File, p.Logs[0].File)
				}
				if q.ID == p.ID {
					return nil, fmt.Errorf("--fit-from %s is of run %s, as is %s, a log being predicted: the fit would be in sample; fit from other runs' logs", q.Logs[0].File, p.ID, p.Logs[0].File)
				}
			}
		}
	}
	rep := &Report{Schema: 1, Seeds: opt.Seeds, Folds: opt.Folds, Summary: map[string]Accuracy{}, Skipped: []string{}, Notes: append([]string{}, notes...)}
	for _, p := range skipped {
		rep.Skipped = append(rep.Skipped, p.Error())
	}
	// The harness's own time to hand a freed slot to the next sample, per
	// process; each process takes the median of the others' (leave one
	// run out: never its own recorded starts).
	handoffs := make([]float64, len(procs))
	for i, p := range procs {
		handoffs[i] = handoffOf(p)
	}
	for _, q := range from {
		handoffs = append(handoffs, handoffOf(q))
	}
	for i, p := range procs {
		var others []float64
		for j, v := range handoffs {
			if j != i && !math.IsNaN(v) {
				others = append(others, v)
			}
		}
		if len(others) > 0 {
			p.Handoff = time.Duration(quantile(others, 0.5) * 1e9)
			slices.Sort(others)
			for _, v := range others {
				p.handoffs = append(p.handoffs, time.Duration(v*1e9))
			}
		}
	}
	for _, p := range procs {
		r, err := checkProcess(p, from, opt)
		if err != nil {
			// One run that cannot be predicted (a model with no timed call,
			// a what-if its scenario refuses) is said, and the others are
			// still predicted; with none left the check fails.
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("run %s: %v", p.Name(), err))
			continue
		}
		rep.Runs = append(rep.Runs, r)
	}
	if len(rep.Runs) == 0 {
		return nil, fmt.Errorf("no run could be predicted: %s", strings.Join(rep.Skipped, "; "))
	}
	rep.summarise()
	return rep, nil
}

func checkProcess(p *Process, from []*Process, opt Options) (*RunResult, error) {
	h := HarnessOf(p)
	r := &RunResult{Run: p.ID, Version: h.Version, Harness: h, Samples: len(p.Samples), Warnings: siblingWarnings(p)}
	for _, l := range p.Logs {
		r.Logs = append(r.Logs, l.File)
		r.Status = append(r.Status, l.Status)
	}
	for _, s := range p.Samples {
		r.Calls += s.Calls
	}
	fits, err := fitProcess(p, h, from, opt.Folds)
	if err != nil {
		return nil, err
	}
	r.HeldOut = true
	for _, m := range p.Models {
		r.Fits = append(r.Fits, fits[m])
		r.HeldOut = r.HeldOut && fits[m].HeldOut
	}
	rec := recordedMeasures(p)
	runs, err := simulateSeeds(p, h, fits, WhatIf{}, opt.Seeds)
	if err != nil {
		return nil, err
	}
	r.Figures = figures(rec, runs, true)
	if opt.WhatIf != (WhatIf{}) {
		wh := opt.WhatIf.apply(h)
		wruns, err := simulateSeeds(p, wh, fits, opt.WhatIf, opt.Seeds)
		if err != nil {
			return nil, fmt.Errorf("what-if: %w", err)
		}
		pol := opt.WhatIf.Policy
		if pol == "" {
			pol = "inspect"
		}
		r.WhatIf = &WhatIfResult{Harness: wh, Policy: pol, Quota: opt.WhatIf.Quota, Figures: figures(rec, wruns, false)}
		if opt.WhatIf.Prices != "" {
			c, err := costPerSample(p, opt.WhatIf.Prices)
			if err != nil {
				return nil, err
			}
			r.WhatIf.CostPerSample = &c
		}
	}
	return r, nil
}

func simulateSeeds(p *Process, h Harness, fits map[string]*Fit, w WhatIf, seeds int) ([]Measures, error) {
	var out []Measures
	for s := 1; s <= seeds; s++ {
		rng := rand.New(rand.NewPCG(uint64(s), 0x626f6f74)) // "boot"
		drawn := map[string]*Fit{}
		for _, m := range slices.Sorted(maps.Keys(fits)) {
			drawn[m] = fits[m].resampled(rng)
		}
		// The harness's handoff, like the fit, is drawn per seed: one of
		// the other runs' (its spread is the harness's own uncertainty).
		q := *p
		if len(p.handoffs) > 0 {
			q.Handoff = p.handoffs[rng.IntN(len(p.handoffs))]
		}
		m, err := simulate(&q, h, drawn, w, uint64(s))
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// figures pairs the recorded figures with the seeds' predictions; score:
// the errors are the prediction's (false for a what-if, which predicts
// another run than the one recorded).
func figures(rec Measures, runs []Measures, score bool) Figures {
	var f Figures
	for _, e := range f.each() {
		var vs []float64
		for _, m := range runs {
			vs = append(vs, e.pick(m))
		}
		fig := e.fig
		fig.Predicted = round(quantile(vs, 0.5))
		fig.Interval = [2]float64{round(quantile(vs, 0.05)), round(quantile(vs, 0.95))}
		if r := e.pick(rec); !math.IsNaN(r) {
			rv := round(r)
			fig.Recorded = &rv
			if score && r != 0 {
				er := round((fig.Predicted - r) / r)
				in := r >= quantile(vs, 0.05) && r <= quantile(vs, 0.95)
				fig.Error, fig.Inside = &er, &in
			}
		}
	}
	return f
}

// round keeps 4 significant digits: outputs stable across platforms' last bits.
func round(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	d := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*d) / d
}

// fitProcess fits each model's latency: k-fold by sample on the process's
// own calls, or on other logs' calls (from).
func fitProcess(p *Process, h Harness, from []*Process, k int) (map[string]*Fit, error) {
	fits := map[string]*Fit{}
	if len(from) > 0 {
		pooled := map[string][]obs{}
		known := map[string]bool{}
		for _, q := range from {
			o, lk := observations(q, HarnessOf(q))
			for m, cs := range o {
				pooled[m] = append(pooled[m], cs...)
				known[m] = lk[m]
			}
		}
		for _, m := range p.Models {
			f, err := fitLatency(m, pooled[m], 1, known[m])
			if err != nil {
				return nil, fmt.Errorf("--fit-from: %w", err)
			}
			f.From, f.HeldOut = "other logs (--fit-from)", true
			f.fold = map[int]int{}
			fits[m] = f
		}
		return fits, nil
	}
	o, lk := observations(p, h)
	for _, m := range p.Models {
		f, err := fitLatency(m, o[m], k, lk[m])
		if err != nil {
			return nil, err
		}
		fits[m] = f
	}
	return fits, nil
}

// summarise computes each figure's accuracy over the runs.
func (rep *Report) summarise() {
	var f Figures
	for _, e := range f.each() {
		var errs []float64
		a := Accuracy{}
		for _, r := range rep.Runs {
			fig := figureOf(r, e.name)
			if fig.Error == nil || !r.HeldOut {
				continue
			}
			a.Runs++
			ae := math.Abs(*fig.Error)
			errs = append(errs, ae)
			if *fig.Inside {
				a.Covered++
			}
			if r.Calls >= 50 {
				a.LargeRuns++
				if ae <= 0.2 {
					a.LargeWithin++
				}
			}
		}
		if len(errs) > 0 {
			md, p90 := round(quantile(errs, 0.5)), round(quantile(errs, 0.9))
			a.MedianAbs, a.P90Abs = &md, &p90
		}
		rep.Summary[e.name] = a
	}
}

// figureOf is the named figure of a run.
func figureOf(r *RunResult, name string) *Figure {
	for _, x := range r.Figures.each() {
		if x.name == name {
			return x.fig
		}
	}
	return nil
}

// sameLog reports whether processes q and p read a file in common (a log
// without a run_id named by two paths).
func sameLog(q, p *Process) bool {
	for _, a := range q.Logs {
		fa, err := os.Stat(a.File)
		if err != nil {
			continue
		}
		for _, b := range p.Logs {
			if fb, err := os.Stat(b.File); err == nil && os.SameFile(fa, fb) {
				return true
			}
		}
	}
	return false
}
