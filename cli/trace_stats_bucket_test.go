package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTraceStatsBucketBounded: a --bucket so narrow that the trace's span
// needs more than 100,000 buckets is refused, naming the flag, the limit
// and a width that fits, before anything is printed (a 1ns bucket over a
// 100-job trace took gigabytes and never ended).
func TestTraceStatsBucketBounded(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		writeIn(t, dir, name, text)
		return filepath.Join(dir, name)
	}
	job := func(id, at string) string {
		return `{"v":1,"id":"` + id + `","arrival_s":` + at + `,"account":"a","project":"p","batch":"b","model":"gpt-5.5","plan":[{"calls":[[55,415]]}]}` + "\n"
	}
	jobs := write("jobs.jsonl", job("j1", "0")+job("j2", "0.001"))
	long := write("long.jsonl", job("j1", "0")+job("j2", "50"))
	reqs := write("m.jsonl", `{"timestamp": 0, "input_length": 1, "output_length": 1}`+"\n"+`{"timestamp": 1, "input_length": 1, "output_length": 1}`+"\n")
	for _, tc := range []struct {
		name string
		args []string
		err  string // "" for a table printed
	}{
		{"1ns over 1ms", []string{"--bucket", "1ns", jobs},
			"--bucket 1ns: the arrivals span 1ms, which needs more than 100000 buckets (the limit) of 1ns; use --bucket 1µs or wider"},
		{"1ns over 1ms, --json", []string{"--json", "--bucket", "1ns", jobs},
			"--bucket 1ns: the arrivals span 1ms, which needs more than 100000 buckets (the limit) of 1ns; use --bucket 1µs or wider"},
		{"500µs over 50s: exactly 100001 buckets", []string{"--bucket", "500us", long},
			"--bucket 500µs: the arrivals span 50s, which needs more than 100000 buckets (the limit) of 500µs; use --bucket 1ms or wider"},
		{"1ms over 50s: 50001 buckets", []string{"--bucket", "1ms", long}, ""},
		{"request trace, 1ns over 1ms", []string{"--format", "mooncake", "--bucket", "1ns", reqs},
			"--bucket 1ns: the arrivals span 1ms, which needs more than 100000 buckets (the limit) of 1ns; use --bucket 1µs or wider"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runTrace(t, append([]string{"stats"}, tc.args...)...)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.err, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if tc.err != "" && out != "" {
				t.Errorf("refused, yet printed:\n%.300s", out)
			}
			if tc.err == "" && !strings.Contains(out, "arrivals per 1ms") {
				t.Errorf("no arrivals table:\n%.300s", out)
			}
		})
	}
}
