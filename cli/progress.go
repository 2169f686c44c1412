package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/evalsched/lab/lab"
	"github.com/evalsched/lab/sim"
	"golang.org/x/term"
)

// progressEvery is the least time between two redraws of the progress bar.
const progressEvery = 100 * time.Millisecond

// newProgress returns a progress callback for runs simulations (sim.Compare
// calls it from one goroutine per run, with the run's index) that draws a
// single-line bar on w, or nil when w is not a terminal, so that logs and CI
// output stay clean. Redraws are throttled; the bar is erased once every run
// has reached its end.
func newProgress(w io.Writer, label string, runs int) func(i int, now, end sim.Time) {
	f, ok := w.(*os.File)
	if !ok || runs <= 0 || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	width := 80
	if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 20 {
		width = cols
	}
	p := &progress{w: f, label: label, width: width, frac: make([]float64, runs)}
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
	w     io.Writer
	label string
	width int
	frac  []float64 // per run, 0..1
	last  time.Time
	done  bool
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
	all := true
	for _, v := range p.frac {
		all = all && v >= 1
	}
	if all {
		// Erase the bar: what follows starts on a clean line.
		fmt.Fprint(p.w, "\r\033[K")
		p.done = true
		return
	}
	t := time.Now()
	if t.Sub(p.last) < progressEvery {
		return
	}
	p.last = t
	fmt.Fprint(p.w, "\r\033[K"+p.line())
}

// line is the bar: "label [#####.....]  42%  run 1 50% · run 2 34%", cut to
// the terminal width.
func (p *progress) line() string {
	mean := 0.0
	for _, v := range p.frac {
		mean += v
	}
	mean /= float64(len(p.frac))
	var runs []string
	if len(p.frac) > 1 {
		for k, v := range p.frac {
			runs = append(runs, fmt.Sprintf("%d:%3.0f%%", k+1, 100*v))
		}
	}
	tail := fmt.Sprintf(" %3.0f%%", 100*mean)
	if len(runs) > 0 {
		tail += "  " + strings.Join(runs, " ")
	}
	barW := min(40, p.width-len(p.label)-len(tail)-4)
	if barW < 5 {
		s := p.label + tail
		if len(s) >= p.width {
			s = s[:p.width-1]
		}
		return s
	}
	n := int(mean * float64(barW))
	return p.label + " [" + strings.Repeat("#", n) + strings.Repeat(".", barW-n) + "]" + tail
}
