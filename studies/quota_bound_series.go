package studies

import "github.com/evalsched/lab/results"

// laneSeries keeps what the study reads of a run's series rows: each
// model's highest running count and the fullest window and the calls
// waiting (queued or in backoff) at it; after the warm-up each model's
// mean window use and calls in backoff; and the highest and mean sum of
// running jobs over the models of group.
type laneSeries struct {
	warmup                 float64
	group                  []bool
	peak                   []int32
	useAtPeak              []float32
	waitAtPeak             []int32
	useSum, backoffSum     []float64
	rows                   []int
	t                      float64
	sum, sumPeak, sumTotal float64
	sums                   int
}

func newLaneSeries(models int, warmup float64, group []bool) *laneSeries {
	return &laneSeries{warmup: warmup, group: group, peak: make([]int32, models), useAtPeak: make([]float32, models), waitAtPeak: make([]int32, models),
		useSum: make([]float64, models), backoffSum: make([]float64, models), rows: make([]int, models), t: -1}
}

func (p *laneSeries) SeriesRow(r results.SeriesRow) {
	m := int(r.Model)
	if m >= len(p.peak) {
		return
	}
	if r.Running > p.peak[m] {
		p.peak[m], p.useAtPeak[m], p.waitAtPeak[m] = r.Running, r.QuotaUse, r.Depth+r.Backoff
	}
	if r.T < p.warmup {
		return
	}
	p.useSum[m] += float64(r.QuotaUse)
	p.backoffSum[m] += float64(r.Backoff)
	p.rows[m]++
	if r.T != p.t {
		p.closeSum()
		p.t = r.T
	}
	if p.group[m] {
		p.sum += float64(r.Running)
	}
}

func (p *laneSeries) closeSum() {
	if p.t >= 0 {
		p.sumPeak = max(p.sumPeak, p.sum)
		p.sumTotal += p.sum
		p.sums++
	}
	p.sum = 0
}

func (p *laneSeries) BatchRow(results.BatchProgressRow) {}

func (p *laneSeries) meanUse(m int) float64 { return results.Ratio(p.useSum[m], float64(p.rows[m])) }
func (p *laneSeries) meanBackoff(m int) float64 {
	return results.Ratio(p.backoffSum[m], float64(p.rows[m]))
}
