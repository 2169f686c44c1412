package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestQuotaCheckExitCodes runs the incident's eval and gates it under and
// over the threshold: the no-guard run uses ~83% of the daily tokens; the
// virtual key's own TPD ends just above 100% (its admission lets the last
// try in while the key is below its cap), so the runs gated under 100% are
// no-guard and fit-admission (no key).
func TestQuotaCheckExitCodes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runSim(t, "compare", "--scenario", "incident-0214", "--variant", "no-guard", "--variant", "virtual-key", "--out", dir); code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	alone := filepath.Join(t.TempDir(), "alone")
	if _, stderr, code := runSim(t, "compare", "--scenario", "incident-0214", "--variant", "no-guard", "--variant", "fit-admission", "--out", alone); code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	for _, tc := range []struct {
		name     string
		in       string
		args     []string
		code     int
		stdout   string // the start of a table line it must print (fields joined by one space)
		inStderr string
	}{
		// The table prints in two blocks within 100 columns: the counts,
		// then N/M and the gate, each led by the row's name.
		{"over the default 5%", dir, nil, exitQuota, "no-guard (baseline) evaluation acme 82.61% OVER", "above the allowed share"},
		{"key over 100%", dir, []string{"--max-share", "1"}, exitQuota, "virtual-key evaluation key evals 100.09% OVER", "1 evaluation line(s) above"},
		{"under 100%", alone, []string{"--max-share", "1"}, 0, "no-guard (baseline) evaluation acme tpd", ""},
		{"json over", dir, []string{"--json"}, exitQuota, `"over": 3`, "above the allowed share"},
		{"json under", alone, []string{"--json", "--max-share", "1"}, 0, `"pass": true`, ""},
		{"bad threshold", dir, []string{"--max-share", "0"}, exitUsage, "", "--max-share: must be in (0, 1]"},
		{"no such dir", filepath.Join(dir, "nope"), nil, exitError, "", "no such file"},
		{"empty directory", "", nil, exitUsage, "", "--in: empty: give a path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"quota-check", "--in", tc.in}, tc.args...)
			stdout, stderr, code := runSim(t, args...)
			if diff := cmp.Diff(tc.code, code); diff != "" {
				t.Errorf("exit code (-want +got):\n%s\nstderr: %s", diff, stderr)
			}
			flat := strings.Join(strings.Fields(stdout), " ")
			if !strings.Contains(flat, tc.stdout) || !strings.Contains(stderr, tc.inStderr) {
				t.Errorf("stdout %q lacks %q or stderr %q lacks %q", stdout, tc.stdout, stderr, tc.inStderr)
			}
		})
	}
}

// TestFlagUsageErrors: a missing required flag, an empty path and seeds
// that would wrap past 2^64-1 are usage errors (exit 2, the usage line),
// like an unknown flag. urfave/cli's own required-flag check exited 1
// after printing the whole help; --out "" tried to swap the working
// directory for the outputs; --seed 2^64-1 --seeds 2 ran seed 0.
func TestFlagUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"quota-check"}, "missing --in"},
		{[]string{"trace", "gen"}, "missing --out"},
		{[]string{"run", "--out", ""}, "--out: empty: give a path"},
		{[]string{"compare", "--scenario", ""}, "--scenario: empty: give a path"},
		{[]string{"report", "--in", ""}, "--in: empty: give a path"},
		{[]string{"compare", "--seed", "18446744073709551615", "--seeds", "2"}, "the last seed would pass 18446744073709551615"},
	} {
		_, stderr, code := runSim(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "usage: sim "+tc.args[0]) {
			t.Errorf("sim %q: exit %d, %q; want %d, %q and the usage line", tc.args, code, stderr, exitUsage, tc.want)
		}
	}
}
