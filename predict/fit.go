package predict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// obs is one call the latency model learns from or predicts: its sample
// (the unit of the folds), tokens, the provider's time for its successful
// try (seconds), and the calls at its pool's provider when it started
// (itself included; 0: not recorded).
type obs struct {
	sample  int
	in, out float64
	lat     float64 // the time the call held its connection, seconds (provider time when not known)
	load    float64
	// provider is the successful try's time (output.time); free marks a
	// call recorded taking its connection at once, whose lat is its whole
	// hold.
	provider float64
	free     bool
}

// Form is a latency model's regressors.
type Form int

// The forms, simplest first.
const (
	FormMean  Form = iota // latency = a
	FormOut               // a + c·output
	FormInOut             // a + b·input + c·output
)

func (f Form) String() string {
	return [...]string{"mean", "a + c·out", "a + b·in + c·out"}[f]
}

// loadGrid is the load slopes tried: latency × (1 + β · calls at the
// provider). 0 first: a slope is kept only when it predicts held-out
// calls better.
var loadGrid = []float64{0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1}

// Fit is a model's latency model, fitted k-fold by sample: each fold's
// coefficients come from the other folds' samples, and a call is
// predicted by its own sample's fold.
type Fit struct {
	Model string `json:"model"`
	Calls int    `json:"calls"`
	Folds int    `json:"folds"`
	// From says what the model was fitted on: "k-fold by sample", "other
	// logs" (--fit-from) or "in sample" (one sample with a timed call:
	// none to hold out). HeldOut is false for the last: its error (MdAPE,
	// MAPE, Bias) is in sample.
	From    string `json:"fitted_on"`
	HeldOut bool   `json:"held_out"`
	// Target is what is predicted: a call's connection hold, or its
	// provider time when the hold is not recorded; ProviderShare the share
	// of the hold at the provider (output.time over the hold) over all the
	// calls, for display: a replayed call's share is its fold's, fitted
	// without its sample.
	Target        string  `json:"target"`
	ProviderShare float64 `json:"provider_share"`
	Form          string  `json:"form"`
	Load          float64 `json:"load_slope"` // β
	// Coef are the coefficients fitted on all the calls (a, b, c in
	// seconds and seconds per token), for display; Sigma the log-residual
	// spread of the multiplicative variation.
	Coef  [3]float64 `json:"coef"`
	Sigma float64    `json:"sigma"`
	// The held-out error per call: median and mean absolute percentage
	// error of the predicted latency, and the ratio of the predicted to
	// the recorded sum minus 1.
	MdAPE float64 `json:"mdape"`
	MAPE  float64 `json:"mape"`
	Bias  float64 `json:"bias"`

	form  Form
	folds []foldModel // by fold
	fold  map[int]int // sample → fold
	data  []obs       // the calls fitted on
	hold  bool        // the target is the connection hold (share < 1)
}

// resampled is the fit with each fold's coefficients refitted on a
// bootstrap resample (by sample) of its training samples: a seed's draw
// of the coefficients' own uncertainty, so the interval over seeds holds
// the latency model's error as well as the calls' variation.
func (f *Fit) resampled(rng *rand.Rand) *Fit {
	g := *f
	g.folds = slices.Clone(f.folds)
	for k := range g.folds {
		bySample := map[int][]obs{}
		var ids []int
		for _, c := range f.data {
			if len(g.folds) > 1 && f.fold[c.sample] == k {
				continue
			}
			if _, ok := bySample[c.sample]; !ok {
				ids = append(ids, c.sample)
			}
			bySample[c.sample] = append(bySample[c.sample], c)
		}
		var train []obs
		for range ids {
			train = append(train, bySample[ids[rng.IntN(len(ids))]]...)
		}
		if c, ok := solve(train, -1, nil, f.form, f.Load); ok {
			g.folds[k] = foldModel{coef: c, share: 1}
			g.folds[k].variation(train, -1, nil, f.form, f.Load)
			if f.hold {
				g.folds[k].share = providerShare(train, -1, nil)
			}
		}
	}
	return &g
}

type foldModel struct {
	coef  [3]float64
	sigma float64
	// share is the provider's share of a connection hold, from the
	// fold's training calls (1: the target is the provider's time).
	share float64
	// ratios are the training calls' latency over its prediction, scaled
	// to mean 1: a call's variation is drawn from them (the residuals'
	// own shape, outliers as often as they came, not a lognormal's tail
	// on every call).
	ratios    []float64
	bandwidth float64
}

// predict is the mean latency of a call of sample s with tokens in, out
// (before load), and its fold's model (whose draw is the call's variation).
func (f *Fit) predict(s int, in, out float64) (mean float64, fm *foldModel) {
	fm = &f.folds[0]
	if k, ok := f.fold[s]; ok {
		fm = &f.folds[k]
	}
	return evalForm(f.form, fm.coef, in, out), fm
}

func evalForm(form Form, c [3]float64, in, out float64) float64 {
	v := c[0]
	switch form {
	case FormOut:
		v += c[2] * out
	case FormInOut:
		v += c[1]*in + c[2]*out
	}
	return max(v, 0.01) // a latency is positive: a negative intercept must not make it 0
}

// fitLatency fits model's latency on calls, k-fold by sample.
func fitLatency(model string, calls []obs, k int, loadKnown bool) (*Fit, error) {
	if len(calls) == 0 {
		return nil, fmt.Errorf("model %s: no call records the provider's time for its try (working_time or output.time)", model)
	}
	// The hold time is known on the calls that took a connection at once:
	// fit on those when there are enough; the share of the hold spent at
	// the provider (output.time) turns a hold into provider time.
	var free []obs
	var hold, prov float64
	for _, c := range calls {
		if c.free {
			free = append(free, c)
			hold, prov = hold+c.lat, prov+c.provider
		}
	}
	share := 1.0
	if len(free) >= max(10, len(calls)/5) {
		calls, share = free, prov/hold
	}
	f := &Fit{Model: model, fold: map[int]int{}, ProviderShare: round(share), hold: share < 1}
	samples := []int{}
	for _, c := range calls {
		if !slices.Contains(samples, c.sample) {
			samples = append(samples, c.sample)
		}
	}
	sort.Ints(samples)
	f.Calls = len(calls)
	if f.hold {
		f.Target = "the connection hold (generate() to completion; calls that took one at once)"
	} else {
		f.Target = "the provider's time (output.time)"
	}
	k = min(k, len(samples))
	if k < 2 {
		f.From, k = fmt.Sprintf("in sample (%d sample with a timed call: none to hold out)", len(samples)), 1
	} else {
		f.From, f.HeldOut = fmt.Sprintf("%d-fold by sample", k), true
	}
	f.Folds = k
	for i, s := range samples {
		f.fold[s] = i % k
	}
	grid := loadGrid
	if !loadKnown {
		grid = loadGrid[:1]
	}
	best := math.Inf(1)
	for form := FormMean; form <= FormInOut; form++ {
		for _, beta := range grid {
			folds, ok := f.fitFolds(calls, k, form, beta)
			if !ok {
				continue
			}
			if _, ok := solve(calls, -1, nil, form, beta); !ok {
				continue // the form must hold on all the calls too (Coef)
			}
			score := f.heldOutError(calls, form, beta, folds)
			if score < best*(1-1e-3) { // a more complex model must do better
				best = score
				f.form, f.Load, f.folds = form, beta, folds
			}
		}
	}
	if f.folds == nil {
		return nil, fmt.Errorf("model %s: no latency model fits its %d calls", model, len(calls))
	}
	f.Form = f.form.String()
	f.data = calls
	all, _ := solve(calls, -1, nil, f.form, f.Load)
	f.Coef = all
	var apes []float64
	var sumP, sumR float64
	for _, c := range calls {
		m, _ := f.predict(c.sample, c.in, c.out)
		p := m * (1 + f.Load*c.load)
		apes = append(apes, math.Abs(p-c.lat)/c.lat)
		sumP, sumR = sumP+p, sumR+c.lat
	}
	f.MdAPE, f.MAPE, f.Bias = quantile(apes, 0.5), mean(apes), sumP/sumR-1
	f.Sigma = f.folds[0].sigma
	return f, nil
}

// fitFolds fits the form on each fold's complement (on all calls when k is 1).
func (f *Fit) fitFolds(calls []obs, k int, form Form, beta float64) ([]foldModel, bool) {
	folds := make([]foldModel, k)
	for i := range k {
		hold := i
		if k == 1 {
			hold = -1
		}
		c, ok := solve(calls, hold, f.fold, form, beta)
		if !ok {
			return nil, false
		}
		folds[i] = foldModel{coef: c, share: 1}
		folds[i].variation(calls, hold, f.fold, form, beta)
		if f.hold {
			folds[i].share = providerShare(calls, hold, f.fold)
		}
	}
	return folds, true
}

// providerShare is the provider's time over the connection hold, summed
// over the calls not in fold hold (-1: all).
func providerShare(calls []obs, hold int, fold map[int]int) float64 {
	var h, p float64
	for _, c := range calls {
		if hold >= 0 && fold[c.sample] == hold {
			continue
		}
		h, p = h+c.lat, p+c.provider
	}
	if h <= 0 {
		return 1
	}
	return p / h
}

// shareFor is the provider share a replayed call of sample s takes: its
// fold's (the fold fitted without s).
func (f *Fit) shareFor(s int) float64 {
	fm := &f.folds[0]
	if k, ok := f.fold[s]; ok {
		fm = &f.folds[k]
	}
	return fm.share
}

// variation sets the fold's variation from its training calls (all but
// fold hold; -1: all): their latency over its prediction, scaled to mean 1,
// and the spread of its logarithm (reported).
func (fm *foldModel) variation(calls []obs, hold int, fold map[int]int, form Form, beta float64) {
	var rs, logs []float64
	for _, o := range calls {
		if hold >= 0 && fold[o.sample] == hold {
			continue
		}
		r := o.lat / (evalForm(form, fm.coef, o.in, o.out) * (1 + beta*o.load))
		rs, logs = append(rs, r), append(logs, math.Log(r))
	}
	m := mean(rs)
	for i := range rs {
		rs[i] /= m
	}
	fm.ratios, fm.sigma = rs, stddev(logs)
	// A smoothed bootstrap: a drawn ratio is spread by a lognormal kernel
	// of Silverman's bandwidth (1.06 σ n^-1/5 on the log scale), so a few
	// calls' residuals do not bound the draws by their largest.
	fm.bandwidth = 1.06 * fm.sigma * math.Pow(float64(max(len(rs), 1)), -0.2)
}

// draw is a call's variation: a training ratio, spread by the kernel,
// its mean kept at 1.
func (fm *foldModel) draw(rng *rand.Rand) float64 {
	if len(fm.ratios) == 0 {
		return 1
	}
	h := fm.bandwidth
	return fm.ratios[rng.IntN(len(fm.ratios))] * math.Exp(h*rng.NormFloat64()-h*h/2)
}

// heldOutError is the mean absolute error of each call's prediction by
// the fold that held its sample out, over the mean latency.
func (f *Fit) heldOutError(calls []obs, form Form, beta float64, folds []foldModel) float64 {
	var e, s float64
	for _, c := range calls {
		fm := folds[f.fold[c.sample]%len(folds)]
		p := evalForm(form, fm.coef, c.in, c.out) * (1 + beta*c.load)
		e += math.Abs(p - c.lat)
		s += c.lat
	}
	return e / s
}

// solve fits form by least squares on lat / (1 + β·load) over the calls
// not in fold hold (-1: all); ok is false when a coefficient (a slope or
// the intercept) comes out negative or the system is singular.
func solve(calls []obs, hold int, fold map[int]int, form Form, beta float64) ([3]float64, bool) {
	var out [3]float64
	cols := []int{0}
	switch form {
	case FormOut:
		cols = []int{0, 2}
	case FormInOut:
		cols = []int{0, 1, 2}
	}
	var rows [][]float64
	var ys []float64
	for _, c := range calls {
		if hold >= 0 && fold[c.sample] == hold {
			continue
		}
		x := []float64{1, c.in, c.out}
		r := make([]float64, len(cols))
		for j, col := range cols {
			r[j] = x[col]
		}
		rows = append(rows, r)
		ys = append(ys, c.lat/(1+beta*c.load))
	}
	if len(rows) < len(cols)+1 {
		return out, false
	}
	A := mat.NewDense(len(rows), len(cols), nil)
	for i, r := range rows {
		A.SetRow(i, r)
	}
	y := mat.NewVecDense(len(ys), ys)
	var b mat.VecDense
	if err := b.SolveVec(A, y); err != nil {
		return out, false
	}
	for j, col := range cols {
		out[col] = b.AtVec(j)
		if out[col] < 0 { // a negative slope, or intercept (a short call's latency below 0)
			return out, false
		}
	}
	return out, true
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func stddev(v []float64) float64 {
	if len(v) < 2 {
		return 0
	}
	m := mean(v)
	s := 0.0
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(v)-1))
}

// quantile is the q-quantile of v by linear interpolation (NaN for none).
func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	i := int(pos)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (pos-float64(i))*(s[i+1]-s[i])
}
