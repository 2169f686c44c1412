package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestQuotaCheckExitCodes runs the incident's eval once and gates it under
// and over the threshold: the no-guard run uses ~82% of the daily tokens.
func TestQuotaCheckExitCodes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runSim(t, "compare", "--scenario", "incident-0214", "--variant", "no-guard", "--variant", "virtual-key", "--out", dir); code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		stdout   string // the start of a table line it must print (fields joined by one space)
		inStderr string
	}{
		{"over the default 5%", nil, exitQuota, "no-guard (baseline) evaluation acme tpd 39,393,000 48,000,000 82.07% OVER", "above the allowed share"},
		{"under 100%", []string{"--max-share", "1"}, 0, "no-guard (baseline) evaluation acme tpd", ""},
		{"json over", []string{"--json"}, exitQuota, `"over": 3`, "above the allowed share"},
		{"json under", []string{"--json", "--max-share", "1"}, 0, `"pass": true`, ""},
		{"bad threshold", []string{"--max-share", "0"}, exitUsage, "", "--max-share: must be in (0, 1]"},
		{"no such dir", []string{"--in", filepath.Join(dir, "nope")}, exitError, "", "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"quota-check", "--in", dir}, tc.args...)
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
