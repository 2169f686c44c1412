package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evalsched/lab/lab"
	"github.com/evalsched/lab/sim"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressOff is set by the global --quiet flag (or SIM_QUIET).
var progressOff atomic.Bool

// progressUnits is the bar's resolution: the runs' mean simulated fraction
// in thousandths, so that the library's elapsed time and ETA follow the
// simulated time, not only the count of finished runs.
const progressUnits = 1000

// newProgress returns a progress callback for runs simulations (called from
// one goroutine per run, with the run's index) that draws one line on w
// with github.com/schollz/progressbar: the label, the share simulated, the
// runs done of all and in flight, the elapsed time and an ETA. It returns
// nil, drawing nothing, when w is not a terminal (logs and CI stay clean)
// or with --quiet. The line is cleared once every run has ended.
func newProgress(w io.Writer, label string, runs int) func(i int, now, end sim.Time) {
	f, ok := w.(*os.File)
	if progressOff.Load() || !ok || runs <= 0 || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	p := &progress{frac: make([]float64, runs), label: label}
	p.bar = progressbar.NewOptions(progressUnits,
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription(p.describe()),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	return p.update
}

// progressOf is newProgress for the runs of lab.RunPoints.
func progressOf(w io.Writer, label string) lab.Progress {
	return func(n int) func(int, sim.Time, sim.Time) {
		if p := newProgress(w, label, n); p != nil {
			return p
		}
		return nil
	}
}

type progress struct {
	mu    sync.Mutex
	bar   *progressbar.ProgressBar
	label string
	frac  []float64 // per run, 0..1
	done  bool
}

// describe is "label: runs D/N done, F in flight".
func (p *progress) describe() string {
	done, flight := 0, 0
	for _, v := range p.frac {
		switch {
		case v >= 1:
			done++
		case v > 0:
			flight++
		}
	}
	return fmt.Sprintf("%s: runs %d/%d done, %d in flight", p.label, done, len(p.frac), flight)
}

func (p *progress) update(i int, now, end sim.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done || i < 0 || i >= len(p.frac) {
		return
	}
	f := 1.0
	if end > 0 {
		f = min(1, max(0, float64(now)/float64(end)))
	}
	p.frac[i] = f
	mean := 0.0
	for _, v := range p.frac {
		mean += v
	}
	mean /= float64(len(p.frac))
	p.bar.Describe(p.describe())
	if mean >= 1 {
		p.done = true
		p.bar.Finish()
		return
	}
	p.bar.Set(int(mean * progressUnits))
}
