package sim

import (
	"testing"

	"github.com/evalsched/lab/scenario"
)

// BenchmarkQuotaRetryStorm: a retry storm against a request quota with
// retry burn: tries arrive far faster than RPM admits, every refused try
// counts a request and asks when it would fit. A minute window then holds
// a minute of refused tries; finding when enough of them age out must not
// cost a pass over them on every refusal (that was quadratic: a scenario
// with 10M production calls an hour stalled). Reports ns per try; run at
// two rates, the cost per try should not grow with the rate.
func BenchmarkQuotaRetryStorm(b *testing.B) {
	for _, rate := range []struct {
		name  string
		every Time // between tries
	}{{"1k-per-s", Millisecond}, {"10k-per-s", 100 * Microsecond}} {
		b.Run(rate.name, func(b *testing.B) {
			for _, under := range []bool{false, true} {
				name := "fit"
				if under {
					name = "under_limit"
				}
				b.Run(name, func(b *testing.B) {
					p := newQuotaPool(poolSpec{limits: [scenario.NumDims]float64{scenario.DimRPM: 5000, scenario.DimTPM: 1e9}, countRejected: true, underLimit: under, models: 1})
					now := Time(0)
					b.ReportAllocs()
					b.ResetTimer()
					for range b.N {
						now += rate.every
						if _, ok := p.admit(now, 1200, srcProd, -1); !ok {
							p.burn(now, srcProd, -1)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/try")
				})
			}
		})
	}
}
