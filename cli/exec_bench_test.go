package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/sim"
)

// cpu is the CPU time used so far by this process and by its children
// that have been waited for (the policy processes).
func cpu() (self, children time.Duration) {
	var ru syscall.Rusage
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	self = tv(ru.Utime) + tv(ru.Stime)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return self, tv(ru.Utime) + tv(ru.Stime)
}

// BenchmarkExecPolicy runs a scenario with the in-process scheduler and
// with the Python reference scheduler over the policy protocol, one after
// the other in each iteration, and reports the CPU of each (the lab's
// and, for exec, the policy process's too) and their ratio.
//
//	go test ./cli -run '^$' -bench ExecPolicy -benchtime 1x
func BenchmarkExecPolicy(b *testing.B) {
	if _, err := os.Stat(python); err != nil {
		b.Skip("no " + python)
	}
	def, err := os.ReadFile("../scenario/scenarios/default.yaml")
	if err != nil {
		b.Fatal(err)
	}
	short := strings.NewReplacer("\nduration: 4h\n", "\nduration: 1h30m\n", "at: 2h, model", "at: 50m, model",
		"at: 2h40m, model", "at: 1h10m, model").Replace(string(def))
	for _, bc := range []struct{ name, file string }{{"small", "testdata/small.yaml"}, {"default-1h30m", ""}} {
		b.Run(bc.name, func(b *testing.B) {
			var sc *scenario.Scenario
			var err error
			if bc.file != "" {
				sc, err = scenario.LoadScenario(bc.file)
			} else {
				p := filepath.Join(b.TempDir(), "default-short.yaml")
				if err = os.WriteFile(p, []byte(short), 0o644); err == nil {
					sc, err = scenario.LoadScenario(p)
				}
			}
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var in, ex, exChild time.Duration
			for b.Loop() {
				for _, pol := range []string{"scheduler", "exec:" + python + " " + reference + " scheduler"} {
					s0, c0 := cpu()
					if _, err := sim.Execute(sc, sim.RunSpec{Policy: pol, Seed: 1}); err != nil {
						b.Fatal(err)
					}
					s1, c1 := cpu()
					if pol == "scheduler" {
						in += s1 - s0
					} else {
						ex += s1 - s0
						exChild += c1 - c0
					}
				}
			}
			n := float64(b.N)
			b.ReportMetric(in.Seconds()/n, "inproc-cpu-s")
			b.ReportMetric((ex+exChild).Seconds()/n, "exec-cpu-s")
			b.ReportMetric(exChild.Seconds()/n, "python-cpu-s")
			b.ReportMetric(float64(ex+exChild)/float64(in), "cpu-ratio")
		})
	}
}
