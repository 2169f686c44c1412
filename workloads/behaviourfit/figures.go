package behaviourfit

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Figure is one PNG: a quantity's empirical CDF against its fitted CDF.
type Figure struct {
	Name string // file name, NAME.png
	PNG  []byte
}

// Figures draws a CDF figure per quantity with values.
func (r *Result) Figures() ([]Figure, error) {
	fits := []Fit{r.Turns, r.Fanout, r.Prompt, r.Output, r.ToolTokens, r.ToolSecs}
	if p := r.Phase; p != nil {
		fits[1] = p.Before
		fits = append(fits, p.After)
	}
	var out []Figure
	for _, f := range fits {
		if f.N == 0 {
			continue
		}
		png, err := cdfFigure(f)
		if err != nil {
			return nil, fmt.Errorf("figure %s: %v", f.Name, err)
		}
		out = append(out, Figure{Name: f.Name + ".png", PNG: png})
	}
	return out, nil
}

// cdfFigure draws the data's empirical CDF (steps) and the fitted CDF
// (a smooth line over 200 points), on a log x axis when the data span
// more than two decades and are all positive.
func cdfFigure(f Fit) ([]byte, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: data (n=%d) vs fitted %s", f.Name, f.N, f.Dist.Kind)
	p.X.Label.Text, p.Y.Label.Text = f.Name, "cumulative fraction"
	v := f.Values
	lo, hi := v[0], v[len(v)-1]
	logX := lo > 0 && hi/lo > 100
	if logX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{}
	}
	emp := make(plotter.XYs, 0, 2*len(v))
	for i, x := range v {
		emp = append(emp, plotter.XY{X: x, Y: float64(i) / float64(len(v))}, plotter.XY{X: x, Y: float64(i+1) / float64(len(v))})
	}
	data, err := plotter.NewLine(emp)
	if err != nil {
		return nil, err
	}
	data.Color, data.Width = color.RGBA{R: 0xE6, G: 0x9F, A: 255}, vg.Points(2)
	if hi == lo {
		hi = lo + 1
	}
	fit := make(plotter.XYs, 0, 201)
	for i := 0; i <= 200; i++ {
		t := float64(i) / 200
		x := lo + t*(hi-lo)
		if logX {
			x = math.Exp(math.Log(lo) + t*(math.Log(hi)-math.Log(lo)))
		}
		fit = append(fit, plotter.XY{X: x, Y: CDF(f.Dist, x)})
	}
	model, err := plotter.NewLine(fit)
	if err != nil {
		return nil, err
	}
	model.Color, model.Width = color.RGBA{G: 0x72, B: 0xB2, A: 255}, vg.Points(1.5)
	model.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(plotter.NewGrid(), data, model)
	p.Legend.Add("data", data)
	p.Legend.Add("fit: "+distYAML(f.Dist), model)
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.YOffs = vg.Points(20)
	p.Y.Min, p.Y.Max = 0, 1
	var b bytes.Buffer
	w, err := p.WriterTo(6*vg.Inch, 4*vg.Inch, "png")
	if err != nil {
		return nil, err
	}
	if _, err := w.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
